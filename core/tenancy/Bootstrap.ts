import { Data, Effect, Option } from "effect"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { ApiKeyRepository } from "./ApiKeyRepository.js"
import { ApiKeys } from "./ApiKeys.js"
import type { Organization } from "./Organization.js"
import { Organizations } from "./Organizations.js"
import { UserRepository } from "./UserRepository.js"

interface SingleTenantOptions {
  readonly slug: string
  /** A `pim_...` key to register for the organization (hash only), once. */
  readonly apiKey: Option.Option<string>
  /** An email that gets a pending admin invite. */
  readonly adminEmail: Option.Option<string>
}

/** The configured key is another organization's already: it would act there, not in the bootstrap organization. */
export class BootstrapKeyElsewhere extends Data.TaggedError("BootstrapKeyElsewhere")<{ readonly message: string }> {}

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
    const registerGiven = (plaintext: string) =>
      Effect.gen(function*() {
        const holder = yield* apiKeys.ensure(organization.id, plaintext, "bootstrap")
        if (holder !== organization.id) {
          return yield* new BootstrapKeyElsewhere({
            message: `the key belongs to another organization (${holder}), not to ${organization.slug}: set a new key`
          })
        }
      })
    // Processes starting together take turns from the look to the mint: the first finds no key
    // and mints one, the others find it, so one key is printed.
    const mintUnlessAnyKey = uow.tenant(
      organization.id,
      Effect.gen(function*() {
        yield* uow.lock("bootstrap_api_key", [organization.id])
        const existing = yield* keys.list(organization.id)
        return existing.length === 0 ? Option.some(yield* apiKeys.mint(organization.id, "bootstrap")) : Option.none<string>()
      })
    )
    const minted = Option.isSome(options.apiKey)
      ? yield* Effect.as(registerGiven(options.apiKey.value), Option.none<string>())
      : yield* mintUnlessAnyKey
    if (Option.isSome(options.adminEmail)) {
      const at = new Date(yield* Effect.clockWith((c) => c.currentTimeMillis)).toISOString()
      yield* uow.tenant(organization.id, users.addInvite(organization.id, options.adminEmail.value, "admin", at))
    }
    return { organization, minted }
  })
