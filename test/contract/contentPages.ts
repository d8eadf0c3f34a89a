import { assert, expect, layer } from "@effect/vitest"
import { Effect, Exit, type Layer } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { ContentPages } from "../../core/content/ContentPages.js"
import { AuditLog } from "../../core/events/AuditLog.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { Organizations } from "../../core/tenancy/Organizations.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { attr, entry, familyWith } from "../support/Families.js"

const failsWith = (exit: Exit.Exit<unknown, unknown>, tag: string) => {
  assert(Exit.isFailure(exit))
  expect(JSON.stringify(exit.cause)).toContain(tag)
}

const page = { limit: 50, offset: 0 }

/** Content pages against one storage adapter. */
export const contentPagesSuite = <A, E>(name: string, storage: Layer.Layer<A | Storage, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("creates, lists, patches and deletes pages, with their events; slugs are unique per organization", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const other = yield* newTenant
        const pages = yield* ContentPages
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "content", [attr("body", { type: "richtext" })])

        const about = yield* as(pages.create({ familyId: family.id, title: "Über uns!", attributes: { body: entry("<p>Hi</p>") } }))
        expect(about).toMatchObject({ title: "Über uns!", slug: "uber-uns", status: "draft", attributes: { body: entry("<p>Hi</p>") } })
        // The same title gets a generated slug that is free; an explicit taken slug is a conflict.
        const again = yield* as(pages.create({ familyId: family.id, title: "Uber uns" }))
        expect(again.slug).not.toBe("uber-uns")
        expect(again.slug.startsWith("uber-uns-")).toBe(true)
        failsWith(yield* Effect.exit(as(pages.create({ familyId: family.id, title: "X", slug: "uber-uns" }))), "Conflict")
        failsWith(yield* Effect.exit(as(pages.update(again.id, { slug: "uber-uns" }))), "Conflict")
        // Another organization may use the slug, and never sees these pages.
        const theirFamily = yield* familyWith(other.tenant, "content", [])
        yield* Effect.provideService(pages.create({ familyId: theirFamily.id, title: "Uber uns", slug: "uber-uns" }), CurrentTenant, other.tenant)
        failsWith(yield* Effect.exit(Effect.provideService(pages.get(about.id), CurrentTenant, other.tenant)), "NotFound")

        const listed = yield* as(pages.list(page))
        expect(listed.data.map((p) => p.id)).toEqual([about.id, again.id])
        expect(listed.hasMore).toBe(false)
        const first = yield* as(pages.list({ limit: 1, offset: 0 }))
        expect({ ids: first.data.map((p) => p.id), hasMore: first.hasMore }).toEqual({ ids: [about.id], hasMore: true })
        expect((yield* as(pages.list({ ...page, slug: "uber-uns" }))).data.map((p) => p.id)).toEqual([about.id])

        const patched = yield* as(pages.update(about.id, { title: "About", attributes: { body: entry(null) } }))
        expect(patched).toMatchObject({ title: "About", slug: "uber-uns", attributes: {} })
        expect(yield* as(pages.get(about.id))).toEqual(patched)
        yield* as(pages.remove(about.id))
        failsWith(yield* Effect.exit(as(pages.get(about.id))), "NotFound")
        failsWith(yield* Effect.exit(as(pages.remove(about.id))), "NotFound")

        const audit = yield* as((yield* AuditLog).list({ entityId: about.id, limit: 10, offset: 0 }))
        expect(audit.data.map((e) => [e.name, e.payload])).toEqual([
          ["content_page.deleted", { slug: "uber-uns" }],
          ["content_page.updated", { changed_fields: ["title", "attributes", "attributes.body"] }],
          ["content_page.created", { slug: "uber-uns" }]
        ])
      }))

    it.effect("gives concurrent pages of one title distinct generated slugs, never a conflict", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const pages = yield* ContentPages
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "content", [])
        const made = yield* Effect.all(Array.from({ length: 8 }, () => as(pages.create({ familyId: family.id, title: "Same Title" }))), {
          concurrency: "unbounded"
        })
        expect(new Set(made.map((p) => p.slug)).size).toBe(8)
        expect(made.map((p) => p.slug)).toContain("same-title")
      }))

    it.effect("keeps every one of concurrent patches of one page, each merged into what the others wrote", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const pages = yield* ContentPages
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const codes = ["intro", "body", "footer", "aside"]
        const family = yield* familyWith(tenant, "content", codes.map((code) => attr(code)))
        for (let round = 0; round < 3; round++) {
          const page = yield* as(pages.create({ familyId: family.id, title: `About ${round}` }))
          yield* Effect.all(codes.map((code) => as(pages.update(page.id, { attributes: { [code]: entry(code) } }))), {
            concurrency: "unbounded"
          })
          expect(Object.keys((yield* as(pages.get(page.id))).attributes).sort()).toEqual([...codes].sort())
        }
      }))

    it.effect("takes back values unchanged since their attribute's validation narrowed, as a product does, and checks every other entry", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const pages = yield* ContentPages
        const attributes = yield* Attributes
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "content", [attr("lead", { isLocalizable: true })])
        const about = yield* as(pages.create({ familyId: family.id, title: "About", attributes: { lead: [{ locale: "en", channel: null, value: "Who we are" }] } }))
        const lead = (yield* as(attributes.list("content"))).find((a) => a.code === "lead")
        assert(lead !== undefined)
        yield* as(attributes.update(lead.id, { validation: { maxLength: 8 } }))
        const sentBack = yield* as(pages.update(about.id, { title: "About us", attributes: about.attributes }))
        expect([sentBack.title, sentBack.attributes]).toEqual(["About us", { lead: [{ locale: "en", channel: null, value: "Who we are" }] }])
        failsWith(yield* Effect.exit(as(pages.update(about.id, { attributes: { lead: [{ locale: "fr", channel: null, value: "Who we are" }] } }))), "too_big")
        failsWith(yield* Effect.exit(as(pages.update(about.id, { attributes: { lead: [{ locale: "en", channel: null, value: "Who we were" }] } }))), "too_big")
        // Another family declaring the attribute takes the page with the value it keeps.
        const other = yield* as((yield* Families).create({ code: "other", label: { en: "Other" }, entityKind: "content" }))
        yield* as((yield* Families).attach(other.id, { attributeId: lead.id }))
        expect((yield* as(pages.update(about.id, { familyId: other.id }))).attributes).toEqual(sentBack.attributes)
      }))

    it.effect("removes values of a detached attribute scope by scope, as a product does", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const pages = yield* ContentPages
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "content", [attr("intro", { isLocalizable: true })])
        const intro = [{ locale: "de", channel: null, value: "Hallo" }, { locale: "fr", channel: null, value: "Salut" }]
        const made = yield* as(pages.create({ familyId: family.id, title: "Welcome", attributes: { intro } }))
        const attachment = (yield* as((yield* Families).get(family.id))).attributes[0]
        assert(attachment !== undefined)
        yield* as((yield* Families).detach(family.id, attachment.attributeId))
        const one = yield* as(pages.update(made.id, { attributes: { intro: [{ locale: "de", channel: null, value: null }] } }))
        expect(one.attributes).toEqual({ intro: [{ locale: "fr", channel: null, value: "Salut" }] })
        const none = yield* as(pages.update(made.id, { attributes: { intro: [{ locale: "fr", channel: null, value: null }] } }))
        expect(none.attributes).toEqual({})
      }))

    it.effect("checks the family and values, and activation needs the required attributes", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const pages = yield* ContentPages
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "content", [attr("headline", { requirement: "required" }), attr("weight", { type: "number" })])
        const productFamily = yield* familyWith(tenant, "product", [])
        failsWith(yield* Effect.exit(as(pages.create({ familyId: productFamily.id, title: "T" }))), "unknown_family")
        failsWith(yield* Effect.exit(as(pages.create({ familyId: family.id, title: "T", attributes: { nope: entry("x") } }))), "unknown_attribute")
        failsWith(yield* Effect.exit(as(pages.create({ familyId: family.id, title: "T", attributes: { weight: entry("heavy") } }))), "ValidationFailed")
        failsWith(yield* Effect.exit(as(pages.create({ familyId: family.id, title: "T", status: "active" }))), "required_attribute_missing")

        const draft = yield* as(pages.create({ familyId: family.id, title: "T" }))
        failsWith(yield* Effect.exit(as(pages.update(draft.id, { status: "active" }))), "required_attribute_missing")
        const active = yield* as(pages.update(draft.id, { status: "active", attributes: { headline: entry("Hello") } }))
        expect(active.status).toBe("active")
        // A family still used by a page cannot be deleted.
        failsWith(yield* Effect.exit(as((yield* Families).delete(family.id))), "Conflict")
      }))

    it.effect("rechecks the values kept by a family change code by code in code point order", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const pages = yield* ContentPages
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "content", [attr("headline"), attr("body")])
        const bare = yield* familyWith(tenant, "content", [])
        const made = yield* as(pages.create({ familyId: family.id, title: "Moved", attributes: { headline: entry("H"), body: entry("B") } }))
        const refused = yield* Effect.flip(as(pages.update(made.id, { familyId: bare.id })))
        assert(refused._tag === "ValidationFailed")
        expect(refused.issues.map((i) => i.path)).toEqual([["attributes", "body"], ["attributes", "headline"]])
      }))

    it.effect("answers Forbidden on every call while the organization has content pages turned off", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const pages = yield* ContentPages
        const organizations = yield* Organizations
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "content", [])
        const created = yield* as(pages.create({ familyId: family.id, title: "Kept" }))
        yield* as(organizations.updateCurrent({ settings: { content_pages_enabled: false } }))
        failsWith(yield* Effect.exit(as(pages.list(page))), "Forbidden")
        failsWith(yield* Effect.exit(as(pages.get(created.id))), "Forbidden")
        failsWith(yield* Effect.exit(as(pages.create({ familyId: family.id, title: "New" }))), "Forbidden")
        failsWith(yield* Effect.exit(as(pages.update(created.id, { title: "Changed" }))), "Forbidden")
        failsWith(yield* Effect.exit(as(pages.remove(created.id))), "Forbidden")
        yield* as(organizations.updateCurrent({ settings: { content_pages_enabled: true } }))
        expect((yield* as(pages.get(created.id))).title).toBe("Kept")
      }))

    it.effect("counts and removes content values when their attribute is deleted; the organization's deletion takes the pages", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const pages = yield* ContentPages
        const attributes = yield* Attributes
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "content", [attr("intro"), attr("outro")])
        const created = yield* as(pages.create({ familyId: family.id, title: "P", attributes: { intro: entry("a"), outro: entry("b") } }))
        const intro = (yield* as(attributes.list("content"))).find((a) => a.code === "intro")
        assert(intro !== undefined)
        expect(yield* as(attributes.usage(intro.id))).toMatchObject({ contentPages: 1, products: 0, total: 1 })
        yield* as(attributes.delete(intro.id))
        expect((yield* as(pages.get(created.id))).attributes).toEqual({ outro: entry("b") })

        const deleted = yield* as((yield* Organizations).delete(organization.id, organization.slug))
        expect(deleted.deletedCounts.contentPages).toBe(1)
      }))
  })
