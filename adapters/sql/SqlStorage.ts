import { SqlClient } from "@effect/sql"
import type { MigrationError } from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import { Layer } from "effect"
import { OutboxSignalLive } from "../../core/events/OutboxSignal.js"
import { type DatabaseTooNew, migrate, type MigrationsNotRecorded } from "./Migrate.js"
import * as SqlApiKeyRepository from "./SqlApiKeyRepository.js"
import * as SqlAttributeRepository from "./SqlAttributeRepository.js"
import * as SqlAttributeValueStore from "./SqlAttributeValueStore.js"
import * as SqlBrandRepository from "./SqlBrandRepository.js"
import * as SqlCategoryRepository from "./SqlCategoryRepository.js"
import * as SqlEventLog from "./SqlEventLog.js"
import * as SqlConnectorRepository from "./SqlConnectorRepository.js"
import * as SqlContentPageRepository from "./SqlContentPageRepository.js"
import * as SqlVariantRepository from "./SqlVariantRepository.js"
import * as SqlRelationshipRepository from "./SqlRelationshipRepository.js"
import * as SqlProductModifierRepository from "./SqlProductModifierRepository.js"
import * as SqlMediaRepository from "./SqlMediaRepository.js"
import * as SqlFamilyRepository from "./SqlFamilyRepository.js"
import * as SqlModifierRepository from "./SqlModifierRepository.js"
import * as SqlOutbox from "./SqlOutbox.js"
import * as SqlOrganizationRepository from "./SqlOrganizationRepository.js"
import * as SqlProductRepository from "./SqlProductRepository.js"
import * as SqlReadiness from "./SqlReadiness.js"
import * as SqlUnitOfWork from "./SqlUnitOfWork.js"
import * as SqlUserRepository from "./SqlUserRepository.js"

/** Runs every pending migration, one process at a time; both dialects share one set. */
export { migrate }

/** Every storage port, over whichever SqlClient is provided. */
export const repositories = Layer.mergeAll(
  SqlUnitOfWork.layer,
  SqlEventLog.layer,
  SqlOrganizationRepository.layer,
  SqlUserRepository.layer,
  SqlApiKeyRepository.layer,
  SqlReadiness.layer,
  SqlModifierRepository.layer,
  SqlAttributeRepository.layer,
  SqlFamilyRepository.layer,
  SqlAttributeValueStore.layer,
  SqlConnectorRepository.layer,
  SqlOutbox.layer,
  SqlCategoryRepository.layer,
  SqlBrandRepository.layer,
  SqlProductRepository.layer,
  SqlContentPageRepository.layer,
  SqlVariantRepository.layer,
  SqlRelationshipRepository.layer,
  SqlProductModifierRepository.layer,
  SqlMediaRepository.layer
).pipe(Layer.provideMerge(OutboxSignalLive))

/**
 * The storage ports over `client`, after migrating it. Fails to build with the migrator's
 * `MigrationError` or `SqlError` when the database refuses a migration, `DatabaseTooNew` or
 * `MigrationsNotRecorded`.
 */
export const fromClient = <E, R>(client: Layer.Layer<SqlClient.SqlClient, E, R>) =>
  repositories.pipe(
    Layer.provideMerge(Layer.effectDiscard(migrate)),
    Layer.provideMerge(client)
  )

/** Why the migrations at start did not run: the database refused one, or is not this version's to migrate. */
export type MigrationFailure = MigrationError | SqlError | DatabaseTooNew | MigrationsNotRecorded

/** The ports every storage adapter provides. */
export type Storage = Layer.Layer.Success<typeof repositories>
