import { Effect, Option } from "effect"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { ApiKeyRepository } from "./ApiKeyRepository.js"
import { ApiKeys } from "./ApiKeys.js"
import type { Organization } from "./Organization.js"
import { Organizations } from "./Organizations.js"
import { UserRepository } from "./UserRepository.js"

export interface SingleTenantOptions {
  readonly slug: string
  /** A `pim_...` key to register for the organization (hash only), once. */
  readonly apiKey: Option.Option<string>
  /** An email that gets a pending admin invite. */
  readonly adminEmail: Option.Option<string>
}

/**
 * Ensures the single-tenant deployment's organization, key and admin invite; safe to run at
 * every start. Answers a freshly minted key when none was given and the organization had none.
 */
export const ensureSingleTenant = (options: SingleTenantOptions) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const apiKeys = yield* ApiKeys
    const keys = yield* ApiKeyRepository
    const users = yield* UserRepository
    const uow = yield* UnitOfWork
    const organization: Organization = yield* organizations.ensureBootstrap(options.slug)
    let minted = Option.none<string>()
    if (Option.isSome(options.apiKey)) {
      yield* apiKeys.ensure(organization.id, options.apiKey.value, "bootstrap")
    } else if ((yield* uow.tenant(organization.id, keys.list(organization.id))).length === 0) {
      minted = Option.some(yield* apiKeys.mint(organization.id, "bootstrap"))
    }
    if (Option.isSome(options.adminEmail)) {
      const at = new Date(yield* Effect.clockWith((c) => c.currentTimeMillis)).toISOString()
      yield* uow.tenant(organization.id, users.addInvite(organization.id, options.adminEmail.value, "admin", at))
    }
    return { organization, minted }
  })
