import { Context, Effect, FiberSet, Layer, Option } from "effect"
import { makeEvent } from "../events/EventLog.js"
import { EventLog } from "../events/EventLog.js"
import { mediaFolder } from "../media/Media.js"
import { BlobStore } from "../shared/BlobStore.js"
import { CatalogSettings } from "../shared/CatalogSettings.js"
import { Crypto } from "../shared/Crypto.js"
import { Conflict, Forbidden, NotFound, orNotFound, ValidationFailed } from "../shared/Errors.js"
import { now as nowIso } from "../shared/Tenant.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { type Actor, CurrentTenant, SYSTEM_ACTOR_ID } from "./Actor.js"
import {
  AmbiguousBootstrapOrganization,
  type CreateOrganization,
  mergeSettings,
  Organization,
  OrganizationDeleted,
  OrganizationDetails,
  type UpdateOrganization
} from "./Organization.js"
import { OrganizationRepository } from "./OrganizationRepository.js"
import { Authentication } from "./Authentication.js"
import type { Principal } from "./Principal.js"
import { UserRepository } from "./UserRepository.js"
import { contentPagesFeature } from "./Features.js"
import { sameJson } from "../shared/CanonicalJson.js"
import { takenAs } from "../shared/Taken.js"
import type { ConnectorRecord } from "../connectors/Connector.js"
import { ConnectorRepository } from "../connectors/ConnectorRepository.js"
import { subscribed } from "../events/Subscription.js"
import { deliver } from "../webhooks/Deliver.js"
import { WebhookSender } from "../webhooks/WebhookSender.js"

export class Organizations extends Context.Tag("catalog/Organizations")<Organizations, {
  /** Creates an organization for a signed-in member of another one, or for the service on behalf of `initialAdmin`. */
  readonly create: (
    input: CreateOrganization,
    creator: Principal
  ) => Effect.Effect<Organization, Forbidden | NotFound | ValidationFailed>
  /** Refuses a caller that may not create organizations at all, whatever it would send: `create` asks it too. */
  readonly mayCreate: (creator: Principal) => Effect.Effect<void, Forbidden>
  /**
   * Ensures the single-tenant bootstrap organization exists (idempotent); answers it: the one with
   * the slug, else the only one there is (renamed since), else a new one. Several and none with
   * the slug: `AmbiguousBootstrapOrganization`.
   */
  readonly ensureBootstrap: (slug: string) => Effect.Effect<Organization, Conflict | AmbiguousBootstrapOrganization>
  readonly current: Effect.Effect<OrganizationDetails, NotFound, CurrentTenant>
  readonly updateCurrent: (input: UpdateOrganization) => Effect.Effect<Organization, NotFound | ValidationFailed, CurrentTenant>
  /**
   * Exports the tenant to the blob store, cascades it away, and records `organization.deleted` in
   * the same transaction; then removes the tenant's uploaded files from the blob store.
   */
  readonly delete: (
    id: string,
    confirm: string
  ) => Effect.Effect<OrganizationDeleted, Forbidden | NotFound | ValidationFailed, CurrentTenant>
}>() {}

/** Only an admin's session may delete its organization: an editor's or an API key never may, whatever it sends. */
export const mayDelete = (tenant: Context.Tag.Service<CurrentTenant>): Effect.Effect<void, Forbidden> =>
  tenant.actor.type === "user" && tenant.role === "admin"
    ? Effect.void
    : Effect.fail(new Forbidden({ message: "only an admin of the organization can delete it" }))

const slugTaken = takenAs(["slug"], "the slug is taken by another organization")

export const makeOrganizations = Effect.gen(function*() {
  const repo = yield* OrganizationRepository
  const users = yield* UserRepository
  const events = yield* EventLog
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const blobs = yield* BlobStore
  const settings = yield* CatalogSettings
  const auth = yield* Authentication
  const connectors = yield* ConnectorRepository
  const sender = yield* WebhookSender
  // A farewell has no delivery log to be tried again from: the catalog closes once the ones under
  // way are done (each within the sender's time limit), not by cutting them off.
  const farewells = yield* FiberSet.make()
  yield* Effect.addFinalizer(() => FiberSet.awaitEmpty(farewells))

  const record = (organizationId: string, actor: Actor, name: string, payload: Record<string, unknown>) =>
    makeEvent(organizationId, actor, { name, entityType: "organization", entityId: organizationId, payload }).pipe(
      Effect.tap((event) => events.append([event])),
      Effect.provideService(Crypto, crypto)
    )

  /** Seats `initialAdmin` as an admin, or invites its email; answers what it did, for the event. */
  const seatInitialAdmin = (
    organizationId: string,
    { email, userId }: NonNullable<CreateOrganization["initialAdmin"]>,
    now: string,
    creator: Principal
  ) =>
    Effect.gen(function*() {
      const existing = userId !== undefined
        ? yield* users.findById(userId).pipe(orNotFound("user", userId))
        : email !== undefined
        ? Option.getOrUndefined(yield* users.findByEmail(email))
        : undefined
      // Both given must name one user: an email the id's user does not hold would seat someone else than it names.
      if (existing !== undefined && email !== undefined && existing.email?.toLowerCase() !== email.toLowerCase()) {
        return yield* ValidationFailed.one(["initialAdmin", "email"], "is not the email of the user initialAdmin.userId names", "user_mismatch")
      }
      if (existing !== undefined) {
        // The signed-in creator is an admin already.
        if (creator._tag !== "User" || creator.userId !== existing.id) {
          yield* users.addMembership(organizationId, existing.id, "admin", now)
        }
        return { userId: existing.id }
      }
      if (email === undefined) return {}
      yield* users.addInvite(organizationId, email.toLowerCase(), "admin", now)
      return { invited: email.toLowerCase() }
    })

  const mayCreate = (creator: Principal) =>
    Effect.gen(function*() {
      if (settings.tenancy === "single") {
        return yield* new Forbidden({ message: "this deployment serves a single organization" })
      }
      switch (creator._tag) {
        case "ApiKey":
          return yield* new Forbidden({ message: "an API key cannot create organizations" })
        case "User": {
          const memberships = yield* uow.system(users.memberships(creator.userId))
          if (memberships.length === 0) {
            return yield* new Forbidden({ message: "only a member of an organization can create another" })
          }
          return
        }
        case "Service":
          return
      }
    })

  const create = (input: CreateOrganization, creator: Principal) =>
    Effect.gen(function*() {
      yield* mayCreate(creator)
      const id = yield* crypto.uuid
      return yield* uow.tenant(
        id,
        Effect.gen(function*() {
          const now = yield* nowIso
          const organization = new Organization({
            id,
            name: input.name,
            slug: input.slug,
            settings: input.settings ?? null,
            createdAt: now,
            updatedAt: now
          })
          yield* repo.insert(organization).pipe(slugTaken)
          let actor: Actor = { type: "service", id: SYSTEM_ACTOR_ID }
          let admin: Record<string, unknown> = {}
          if (creator._tag === "User") {
            actor = { type: "user", id: creator.userId }
            yield* users.addMembership(id, creator.userId, "admin", now)
            admin = { userId: creator.userId }
          }
          if (input.initialAdmin !== undefined) {
            const seated = yield* seatInitialAdmin(id, input.initialAdmin, now, creator)
            admin = creator._tag === "User" ? { ...admin, initialAdmin: seated } : seated
          }
          yield* record(id, actor, "organization.created", { slug: input.slug, ...admin })
          return organization
        })
      )
    })

  const ensureBootstrap = (slug: string) =>
    Effect.gen(function*() {
      const found = yield* uow.system(repo.findBySlug(slug))
      if (Option.isSome(found)) return found.value
      // The one organization of a single-tenant deployment may have been renamed since.
      const held = yield* uow.system(repo.sole)
      if (held._tag === "Sole") return held.organization
      if (held._tag === "Several") return yield* new AmbiguousBootstrapOrganization({ slug })
      const id = yield* crypto.uuid
      // The organization and its event commit together, as every other write and its event do.
      // Another process starting at the same time may make it first: then serve that one.
      return yield* uow.tenant(
        id,
        Effect.gen(function*() {
          const now = yield* nowIso
          const organization = new Organization({ id, name: slug, slug, settings: null, createdAt: now, updatedAt: now })
          yield* repo.insert(organization)
          yield* record(id, { type: "system", id: SYSTEM_ACTOR_ID }, "organization.created", { slug })
          return organization
        })
      ).pipe(
        Effect.catchTag("Conflict", (conflict) =>
          uow.system(repo.findBySlug(slug)).pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(conflict), onSome: Effect.succeed }))))
      )
    })

  const current = Effect.gen(function*() {
    const tenant = yield* CurrentTenant
    const row = yield* uow.tenant(tenant.organizationId, repo.findById(tenant.organizationId))
    if (Option.isNone(row)) return yield* new NotFound({ entity: "organization", id: tenant.organizationId })
    const { billing, organization } = row.value
    return new OrganizationDetails({
      ...organization,
      features: {
        content_pages: contentPagesFeature(settings.contentPagesEntitled, organization.settings)
      },
      billing
    })
  })

  const updateCurrent = (input: UpdateOrganization) =>
    Effect.gen(function*() {
      const tenant = yield* CurrentTenant
      return yield* uow.tenant(
        tenant.organizationId,
        Effect.gen(function*() {
          // The settings are merged into those read: a patch racing this one must not be lost. Not
          // the deletion's lock, which this transaction already shares: two patches would each wait
          // for the other's share.
          yield* uow.lock("organization_settings", [tenant.organizationId])
          const row = yield* repo.findById(tenant.organizationId)
          if (Option.isNone(row)) return yield* new NotFound({ entity: "organization", id: tenant.organizationId })
          const before = row.value.organization
          const nextSettings = input.settings === undefined
            ? undefined
            : input.settings === null
            ? null
            : mergeSettings(before.settings, input.settings)
          const changed: Array<string> = []
          if (input.name !== undefined && input.name !== before.name) changed.push("name")
          if (input.slug !== undefined && input.slug !== before.slug) changed.push("slug")
          if (nextSettings !== undefined && !sameJson(nextSettings, before.settings)) changed.push("settings")
          yield* record(tenant.organizationId, tenant.actor, "organization.updated", { changed_fields: changed })
          if (changed.length === 0) return before
          const updated = yield* repo.update(tenant.organizationId, {
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.slug !== undefined ? { slug: input.slug } : {}),
            ...(nextSettings !== undefined ? { settings: nextSettings } : {}),
            updatedAt: yield* nowIso
          }).pipe(slugTaken)
          if (Option.isNone(updated)) return yield* new NotFound({ entity: "organization", id: tenant.organizationId })
          return updated.value
        })
      )
    })

  const remove = (id: string, confirm: string) =>
    Effect.gen(function*() {
      const tenant = yield* CurrentTenant
      // Another organization's id is answered like a missing one: never confirm it exists.
      if (id !== tenant.organizationId) return yield* new NotFound({ entity: "organization", id })
      yield* mayDelete(tenant)
      const row = yield* uow.tenant(id, repo.findById(id))
      if (Option.isNone(row)) return yield* new NotFound({ entity: "organization", id })
      const organization = row.value.organization
      if (confirm !== organization.slug) {
        return yield* ValidationFailed.one(["confirm"], "must equal the organization slug", "confirm_mismatch")
      }
      // One transaction, holding the organization: the export has every row the cascade
      // deletes, and of concurrent deletions one succeeds and the others find nothing.
      const { deletedCounts, event, exportKey, listeners } = yield* uow.system(
        Effect.gen(function*() {
          // Deletions of one organization take turns before any of them holds its row: a second
          // one queued on the row would take it from the writes the first had to give way to.
          yield* uow.lock("organization", [id])
          if (!(yield* repo.holdForDeletion(id))) return yield* new NotFound({ entity: "organization", id })
          // Read once the writes in flight have committed: they are in the export, stamped before it.
          const now = yield* nowIso
          const exportKey = `exports/${id}/${now.replace(/[:.]/g, "-")}.json`
          const dump = yield* repo.exportTenant(id)
          const body = JSON.stringify({ organization, exportedAt: now, tables: dump })
          yield* blobs.put(exportKey, new TextEncoder().encode(body))
          const listeners = (yield* connectors.list(id)).filter((c) => subscribed(c.events, "organization.deleted"))
          const deletedCounts = yield* repo.deleteCascade(id)
          // Recorded after the cascade so the event outlives the tenant as its tombstone.
          const event = yield* record(id, tenant.actor, "organization.deleted", { slug: organization.slug, exportKey })
          return { deletedCounts, event, exportKey, listeners }
        })
      )
      // This process forgets the tenant's keys at once; others within the key cache's lifetime.
      yield* auth.invalidateKeys
      // The files go once the rows naming them have: a deletion that fails keeps both. Past the
      // commit the tenant is gone whatever happens to its files, so a failure to remove them is
      // logged, not answered.
      yield* blobs.removeFolder(mediaFolder(id)).pipe(
        Effect.catchAllDefect((defect) => Effect.logWarning(`the files of deleted organization ${id} were not all removed`, defect))
      )
      // The dispatcher cannot send it, its connectors being gone with the tenant: each one that
      // subscribed gets it once, after the commit, and the attempt has no delivery log to go to,
      // so a failed one is logged.
      if (listeners.length > 0) {
        const farewell = (connector: ConnectorRecord) =>
          deliver(connector, event).pipe(Effect.tap((delivery) =>
            delivery.ok ? Effect.void : Effect.logWarning(`organization.deleted not delivered to connector ${connector.id}: ${delivery.error}`)
          ))
        yield* FiberSet.run(
          farewells,
          Effect.forEach(listeners, farewell, { concurrency: "unbounded", discard: true }).pipe(
            Effect.provideService(Crypto, crypto),
            Effect.provideService(WebhookSender, sender)
          )
        )
      }
      return new OrganizationDeleted({ exportKey, deletedCounts })
      // A client that leaves does not stop it halfway: interrupted during the commit, the
      // deletion was acted on after it, and kept the tenant's files and cached keys.
    }).pipe(Effect.uninterruptible)

  return Organizations.of({ create, mayCreate, ensureBootstrap, current, updateCurrent, delete: remove })
})

export const OrganizationsLive = Layer.scoped(Organizations, makeOrganizations)
