import { SqlClient } from "@effect/sql"
import { assert, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, type Layer, Option, Stream } from "effect"
import { createHash } from "node:crypto"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import type { UploadPart } from "../../core/media/Media.js"
import { MediaLibrary, makeMediaLibrary } from "../../core/media/MediaLibrary.js"
import { Categories } from "../../core/catalog/Categories.js"
import { makeProducts, Products } from "../../core/products/Products.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { BlobStore } from "../../core/shared/BlobStore.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { Variants } from "../../core/variants/Variants.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { makeOrganizations } from "../../core/tenancy/Organizations.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { eventCount, ONE_DELETION, raced, racedChanges } from "../support/CatalogFixtures.js"
import { attr, entry, familyWith } from "../support/Families.js"

const failsWith = (exit: Exit.Exit<unknown, unknown>, tag: string) => {
  assert(Exit.isFailure(exit))
  expect(JSON.stringify(exit.cause)).toContain(tag)
}

const file = (text: string, filename = "f.txt"): UploadPart<never> => ({
  _tag: "File",
  key: "file",
  filename,
  contentType: "text/plain",
  content: Stream.fromIterable([new TextEncoder().encode(text)])
})
const field = (key: string, value: string): UploadPart<never> => ({ _tag: "Field", key, value })
const parts = (...p: ReadonlyArray<UploadPart<never>>) => Stream.fromIterable(p)

const stored = (key: string) => Effect.flatMap(BlobStore, (b) => b.stream(key)).pipe(Effect.map(Option.isSome))

/** A new tenant, a product "Lamp" of a family without attributes, and `as`, which runs an effect as the tenant. */
const tenantWithLamp = Effect.gen(function*() {
  const { organization, tenant } = yield* newTenant
  const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
  const family = yield* familyWith(tenant, "product", [])
  const lamp = yield* as(Effect.flatMap(Products, (products) => products.create({ familyId: family.id, name: "Lamp" })))
  return { organization, tenant, as, family, lamp }
})

/**
 * A unit of work whose `nth` outermost `kind` transaction, once committed, waits (as a slow
 * commit does, uninterruptibly) until the caller it runs for has been interrupted, as a client
 * closing its connection interrupts a request.
 */
const heldCommit = (kind: "tenant" | "system", nth: number) =>
  Effect.gen(function*() {
    const uow = yield* UnitOfWork
    const committed = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    let calls = 0
    const hold = <A, E, R>(run: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      ++calls === nth
        ? Effect.uninterruptible(Effect.zipLeft(run, Effect.zipRight(Deferred.succeed(committed, undefined), Deferred.await(release))))
        : run
    const held = kind === "tenant"
      ? UnitOfWork.of({ ...uow, tenant: (organizationId, effect) => hold(uow.tenant(organizationId, effect)) })
      : UnitOfWork.of({ ...uow, system: (effect) => hold(uow.system(effect)) })
    const interruptedAtCommit = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(effect)
        yield* Deferred.await(committed)
        const interrupting = yield* Effect.fork(Fiber.interrupt(fiber))
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(interrupting)
      })
    return { uow: held, interruptedAtCommit }
  })

/** Media against one storage adapter (bytes in memory). */
export const mediaSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("uploads to a product, orders by position, shows the first as the list's thumbnail, detaches and deletes", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const other = yield* newTenant
        const library = yield* MediaLibrary
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const lamp = yield* as(products.create({ familyId: family.id, name: "Lamp" }))
        const bare = yield* as(products.create({ familyId: family.id, name: "Bare" }))

        const a = yield* as(library.upload(lamp.id, parts(file("first", "../../etc/a.txt"), field("alt", "A"))))
        expect(a).toMatchObject({
          productId: lamp.id,
          organizationId: organization.id,
          filename: "a.txt",
          size: 5,
          sha256: createHash("sha256").update("first").digest("hex"),
          alt: "A",
          position: 0
        })
        const b = yield* as(library.upload(lamp.id, parts(file("second"))))
        expect(b.position).toBe(1)
        const c = yield* as(library.upload(lamp.id, parts(field("position", "0"), file("third"))))
        expect((yield* as(library.list(lamp.id, { limit: 10, offset: 0 }))).data.map((m) => m.id)).toEqual([a.id, c.id, b.id])
        const page = yield* as(products.list({}))
        expect(page.data.map((p) => [p.name, p.thumbnailUrl])).toEqual([["Lamp", a.url], ["Bare", null]])
        expect(bare.id).not.toBe(lamp.id)

        failsWith(yield* Effect.exit(Effect.provideService(library.get(a.id), CurrentTenant, other.tenant)), "NotFound")
        failsWith(yield* Effect.exit(as(library.update(bare.id, a.id, { alt: "x" }))), "NotFound")
        expect(yield* as(library.update(lamp.id, a.id, { position: 9, alt: null }))).toMatchObject({ position: 9, alt: null })
        yield* as(library.detach(lamp.id, c.id))
        expect((yield* as(library.get(c.id))).productId).toBe(null)
        failsWith(yield* Effect.exit(as(library.detach(lamp.id, c.id))), "NotFound")
        const content = yield* as(library.content(c.id))
        expect(Buffer.concat(yield* Stream.runCollect(content.bytes).pipe(Effect.map((ch) => [...ch]))).toString()).toBe("third")
        yield* as(library.remove(c.id))
        failsWith(yield* Effect.exit(as(library.content(c.id))), "NotFound")
        expect(yield* stored(`media/${organization.id}/${c.id}`)).toBe(false)

        // The product's deletion takes its media rows and their bytes.
        yield* as(products.delete(lamp.id))
        failsWith(yield* Effect.exit(as(library.get(a.id))), "NotFound")
        expect(yield* stored(`media/${organization.id}/${a.id}`)).toBe(false)
        expect(yield* stored(`media/${organization.id}/${b.id}`)).toBe(false)
      }))

    it.effect("places an upload without a position after the last, and at the last when that is the largest position", () =>
      Effect.gen(function*() {
        const { as, lamp } = yield* tenantWithLamp
        const library = yield* MediaLibrary
        yield* as(library.upload(lamp.id, parts(field("position", "2147483647"), file("last"))))
        expect((yield* as(library.upload(lamp.id, parts(file("after"))))).position).toBe(2147483647)
      }))

    it.effect("gives uploads sent to one product at the same time one position each, in a row", () =>
      Effect.gen(function*() {
        const { as, lamp } = yield* tenantWithLamp
        const library = yield* MediaLibrary
        const uploads = yield* Effect.all(
          Array.from({ length: 6 }, (_, i) => as(library.upload(lamp.id, parts(file(`shot ${i}`))))),
          { concurrency: "unbounded" }
        )
        expect(uploads.map((m) => m.position).sort()).toEqual([0, 1, 2, 3, 4, 5])
      }))

    it.effect("answers an upload with warnings when the file is empty or its name was changed, and without any otherwise", () =>
      Effect.gen(function*() {
        const { as, lamp } = yield* tenantWithLamp
        const library = yield* MediaLibrary
        const codes = (m: { readonly warnings?: ReadonlyArray<{ readonly code: string }> }) => m.warnings?.map((w) => w.code)
        const plain = yield* as(library.upload(lamp.id, parts(file("bytes", "a.txt"))))
        expect(Object.keys(plain)).not.toContain("warnings")
        expect(codes(yield* as(library.upload(lamp.id, parts(file("", "empty.txt")))))).toEqual(["empty_file"])
        const moved = yield* as(library.upload(lamp.id, parts(file("bytes", "C:\\photos\\b.txt"))))
        expect([moved.filename, codes(moved)]).toEqual(["b.txt", ["filename_changed"]])
        expect(codes(yield* as(library.upload(lamp.id, parts(file("", " ")))))).toEqual(["empty_file", "filename_changed"])
        expect(Object.keys(yield* as(library.get(moved.id)))).not.toContain("warnings")
      }))

    it.effect("keeps nothing when the upload is refused, and bulk deletion removes the bytes too", () =>
      Effect.gen(function*() {
        const { organization, as, family, lamp } = yield* tenantWithLamp
        const library = yield* MediaLibrary
        const products = yield* Products
        failsWith(yield* Effect.exit(as(library.upload(lamp.id, parts(field("alt", "no file"))))), "ValidationFailed")
        failsWith(yield* Effect.exit(as(library.upload(lamp.id, parts(file("a"), file("b"))))), "too_many_files")
        failsWith(yield* Effect.exit(as(library.upload(lamp.id, parts(file("a"), field("position", "first"))))), "ValidationFailed")
        failsWith(yield* Effect.exit(as(library.upload(lamp.id, parts(file("a"), field("colour", "red"))))), "unrecognized_key")
        failsWith(yield* Effect.exit(as(library.upload(crypto.randomUUID(), parts(file("a"))))), "NotFound")
        expect((yield* as(library.list(lamp.id, { limit: 10, offset: 0 }))).data).toEqual([])

        const kept = yield* as(library.upload(lamp.id, parts(file("kept"))))
        const results = yield* as(products.bulk([{ op: "delete", id: lamp.id }, { op: "delete", id: "not-a-uuid" }]))
        expect(results.map((r) => r.ok)).toEqual([true, false])
        expect(yield* stored(`media/${organization.id}/${kept.id}`)).toBe(false)

        // An id in upper case names the same product, and its bytes go with it too.
        const desk = yield* as(products.create({ familyId: family.id, name: "Desk" }))
        const deskMedia = yield* as(library.upload(desk.id, parts(file("desk"))))
        expect(yield* as(products.bulk([{ op: "delete", id: desk.id.toUpperCase() }]))).toEqual([{ ok: true, index: 0, id: desk.id }])
        expect(yield* stored(`media/${organization.id}/${deskMedia.id}`)).toBe(false)
      }))

    it.effect("keeps the bytes of an upload whose client went away while its record was being committed", () =>
      Effect.gen(function*() {
        const { organization, as, lamp } = yield* tenantWithLamp
        // The upload's second transaction records the media.
        const held = yield* heldCommit("tenant", 2)
        const library = yield* makeMediaLibrary.pipe(Effect.provideService(UnitOfWork, held.uow))
        yield* held.interruptedAtCommit(as(library.upload(lamp.id, parts(file("kept")))))

        const kept = (yield* as(library.list(lamp.id, { limit: 10, offset: 0 }))).data
        expect(kept.length).toBe(1)
        expect(yield* stored(`media/${organization.id}/${kept[0]!.id}`)).toBe(true)
      }))

    it.effect("removes the bytes of media, products and an organization deleted for a client that went away during the commit", () =>
      Effect.gen(function*() {
        const { organization, as, family, lamp } = yield* tenantWithLamp
        const library = yield* MediaLibrary
        const products = yield* Products
        const bytesOf = (id: string) => stored(`media/${organization.id}/${id}`)

        const media = yield* as(library.upload(lamp.id, parts(file("gone"))))
        const removal = yield* heldCommit("tenant", 1)
        yield* removal.interruptedAtCommit(as(Effect.flatMap(makeMediaLibrary.pipe(Effect.provideService(UnitOfWork, removal.uow)), (l) => l.remove(media.id))))
        failsWith(yield* Effect.exit(as(library.get(media.id))), "NotFound")
        expect(yield* bytesOf(media.id)).toBe(false)

        for (const deletion of ["one", "bulk"] as const) {
          const product = yield* as(products.create({ familyId: family.id, name: `Lamp ${deletion}` }))
          const shot = yield* as(library.upload(product.id, parts(file("shot"))))
          const held = yield* heldCommit("tenant", 1)
          const heldProducts = yield* makeProducts.pipe(Effect.provideService(UnitOfWork, held.uow))
          yield* held.interruptedAtCommit(as(deletion === "one" ? heldProducts.delete(product.id) : heldProducts.bulk([{ op: "delete", id: product.id }])))
          failsWith(yield* Effect.exit(as(products.get(product.id, {}))), "NotFound")
          expect(yield* bytesOf(shot.id)).toBe(false)
        }

        const last = yield* as(library.upload(lamp.id, parts(file("last"))))
        const held = yield* heldCommit("system", 1)
        yield* Effect.scoped(Effect.gen(function*() {
          const organizations = yield* makeOrganizations.pipe(Effect.provideService(UnitOfWork, held.uow))
          yield* held.interruptedAtCommit(as(organizations.delete(organization.id, organization.slug)))
        }))
        expect(yield* bytesOf(last.id)).toBe(false)
      }))

    it.effect("refuses media and file values that name no media record of the organization, on every write", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const other = yield* newTenant
        const library = yield* MediaLibrary
        const products = yield* Products
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("image", { type: "media" }), attr("manual", { type: "file" })])
        const lamp = yield* as(products.create({ familyId: family.id, name: "Lamp" }))
        const ours = (yield* as(library.upload(lamp.id, parts(file("ours"))))).id
        const otherFamily = yield* familyWith(other.tenant, "product", [])
        const theirs = yield* Effect.provideService(
          Effect.flatMap(products.create({ familyId: otherFamily.id, name: "Theirs" }), (p) => library.upload(p.id, parts(file("theirs")))),
          CurrentTenant,
          other.tenant
        )
        const refused = (exit: Exit.Exit<unknown, unknown>) => {
          failsWith(exit, "unknown_media")
          return JSON.stringify(exit)
        }

        expect(yield* as(products.create({ familyId: family.id, name: "Ok", attributes: { image: entry(ours.toUpperCase()) } })))
          .toMatchObject({ attributes: { image: entry(ours) } })
        for (const id of [theirs.id, "00000000-0000-4000-8000-000000000000"]) {
          const exit = yield* Effect.exit(as(products.create({ familyId: family.id, name: "No", attributes: { image: [{ locale: null, channel: null, value: id }] } })))
          expect(refused(exit)).toContain('"path":["attributes","image",0,"value"]')
        }
        refused(yield* Effect.exit(as(products.update(lamp.id, { attributes: { manual: entry(theirs.id) } }))))
        expect((yield* as(products.update(lamp.id, { attributes: { manual: entry(ours) } }))).attributes).toEqual({ manual: entry(ours) })
        const results = yield* as(products.bulk([
          { op: "create", familyId: family.id, name: "Bulk ok", attributes: { image: entry(ours) } },
          { op: "create", familyId: family.id, name: "Bulk no", attributes: { image: entry(theirs.id) } },
          { op: "update", id: lamp.id, attributes: { image: entry(theirs.id) } }
        ]))
        expect(results.map((r) => r.ok)).toEqual([true, false, false])
        expect(JSON.stringify(results[1])).toContain("unknown_media")
        refused(yield* Effect.exit(as(variants.create(lamp.id, { sku: "LAMP-1", attributes: { image: entry(theirs.id) } }))))
        expect((yield* as(variants.create(lamp.id, { sku: "LAMP-2", attributes: { image: entry(ours) } }))).attributes).toEqual({ image: entry(ours) })
      }))

    it.effect("takes back a value naming deleted media when it is sent as stored, and refuses it anywhere else", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const library = yield* MediaLibrary
        const products = yield* Products
        const variants = yield* Variants
        const categories = yield* Categories
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("image", { type: "media", isLocalizable: true })])
        const categoryFamily = (yield* as((yield* Families).provisioned("category"))).family
        const banner = yield* as((yield* Attributes).create(attr("banner", { type: "media", entityKind: "category" })))
        yield* as((yield* Families).attach(categoryFamily.id, { attributeId: banner.id }))
        const lamp = yield* as(products.create({ familyId: family.id, name: "Lamp" }))
        const gone = (yield* as(library.upload(lamp.id, parts(file("gone"))))).id
        const image = [{ locale: "en", channel: null, value: gone }]
        yield* as(products.update(lamp.id, { attributes: { image } }))
        const variant = yield* as(variants.create(lamp.id, { sku: "LAMP-1", attributes: { image } }))
        const category = yield* as(categories.create({ name: "Lights", attributes: { banner: entry(gone) } }))
        yield* as(library.remove(gone))

        // The whole record, read and written back.
        const read = yield* as(products.get(lamp.id, {}))
        expect((yield* as(products.update(lamp.id, { name: "Lamp II", attributes: read.attributes }))).attributes).toEqual({ image })
        expect((yield* as(products.bulk([{ op: "update", id: lamp.id, attributes: { image: image.map((e) => ({ ...e, value: e.value.toUpperCase() })) } }])))[0]?.ok)
          .toBe(true)
        expect((yield* as(variants.update(lamp.id, variant.id, { name: "One", attributes: { image } }))).name).toBe("One")
        expect((yield* as(categories.update(category.id, { attributes: { banner: entry(gone) } }))).attributes).toEqual({ banner: entry(gone) })

        // The same id at another scope, on another record or in a new record is a new value.
        failsWith(yield* Effect.exit(as(products.update(lamp.id, { attributes: { image: [{ locale: "de", channel: null, value: gone }] } }))), "unknown_media")
        failsWith(yield* Effect.exit(as(products.create({ familyId: family.id, name: "Copy", attributes: { image } }))), "unknown_media")
        failsWith(yield* Effect.exit(as(variants.create(lamp.id, { sku: "LAMP-2", attributes: { image } }))), "unknown_media")
        failsWith(yield* Effect.exit(as(categories.create({ name: "Copy", attributes: { banner: entry(gone) } }))), "unknown_media")
      }))

    it.effect("detaches, deletes and patches media once under concurrent writes, never putting detached media back", () =>
      Effect.gen(function*() {
        const { organization, as, lamp } = yield* tenantWithLamp
        const library = yield* MediaLibrary
        const upload = as(library.upload(lamp.id, parts(file("bytes"))))

        const patched = yield* upload
        const changes = yield* racedChanges(organization.id, "media.association_updated", [
          as(library.update(lamp.id, patched.id, { alt: "Lit" })),
          as(library.update(lamp.id, patched.id, { position: 7 }))
        ])
        expect(changes).toEqual(['["alt"]', '["position"]', "[]", "[]"])
        expect(yield* as(library.get(patched.id))).toMatchObject({ alt: "Lit", position: 7 })

        const detached = yield* upload
        expect(yield* raced(as(library.detach(lamp.id, detached.id)))).toEqual(ONE_DELETION)
        expect(yield* eventCount(organization.id, "media.detached")).toBe(1)
        const deleted = yield* upload
        expect(yield* raced(as(library.remove(deleted.id)))).toEqual(ONE_DELETION)
        expect(yield* eventCount(organization.id, "media.deleted")).toBe(1)

        // A patch that read the media before a detachment committed must not attach it again.
        for (let round = 0; round < 4; round++) {
          const m = yield* upload
          yield* Effect.all([
            Effect.exit(as(library.update(lamp.id, m.id, { alt: `Round ${round}` }))),
            as(library.detach(lamp.id, m.id))
          ], { concurrency: "unbounded" })
          expect((yield* as(library.get(m.id))).productId).toBe(null)
        }
      }))

    it.effect("keeps the bytes of media detached while its product is deleted, alone or in bulk, and refuses a detachment the deletion took", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const library = yield* MediaLibrary
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        for (let round = 0; round < 12; round++) {
          const lamp = yield* as(products.create({ familyId: family.id, name: `Lamp ${round}` }))
          const media = [yield* as(library.upload(lamp.id, parts(file("a")))), yield* as(library.upload(lamp.id, parts(file("b"))))]
          const deletion = round % 2 === 0 ? products.delete(lamp.id) : products.bulk([{ op: "delete", id: lamp.id }])
          const [, ...detached] = yield* Effect.all([
            Effect.exit(as(deletion)),
            ...media.map((m) => Effect.exit(as(library.detach(lamp.id, m.id))))
          ], { concurrency: "unbounded" })
          for (const [i, exit] of detached.entries()) {
            const id = media[i]!.id
            const kept = yield* Effect.exit(as(library.get(id)))
            // A detachment that answered kept the media, bytes and all; one that came too late found nothing.
            if (Exit.isSuccess(exit)) {
              expect(Exit.isSuccess(kept) && kept.value.productId).toBe(null)
              expect(yield* stored(`media/${organization.id}/${id}`)).toBe(true)
            } else {
              failsWith(exit, "NotFound")
              failsWith(kept, "NotFound")
            }
          }
        }
      }))
  })
