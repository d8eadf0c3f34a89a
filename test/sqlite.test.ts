import { expect, layer } from "@effect/vitest"
import { Array as Arr, Effect, Layer, Logger, Redacted } from "effect"
import * as MemoryBlobStore from "../adapters/blobs/MemoryBlobStore.js"
import * as MemoryWebhookSender from "../adapters/webhooks/MemoryWebhookSender.js"
import { BlobStore } from "../core/shared/BlobStore.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { Organizations } from "../core/tenancy/Organizations.js"
import { catalogLayer } from "../index.js"
import { newTenant, SESSION_SECRET } from "./support/Catalog.js"
import { categoriesBrandsSuite } from "./contract/categoriesBrands.js"
import { productFacetsSuite } from "./contract/productFacets.js"
import { productQueriesSuite } from "./contract/productQueries.js"
import { productOracleSuite } from "./contract/productOracle.js"
import { productsSuite } from "./contract/products.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { contentPagesSuite } from "./contract/contentPages.js"
import { modifiersSuite } from "./contract/modifiers.js"
import { variantsSuite } from "./contract/variants.js"
import { productLinksSuite } from "./contract/productLinks.js"
import { mediaSuite } from "./contract/media.js"
import { schemaSuite } from "./contract/schema.js"
import { outboxSuite } from "./contract/outbox.js"
import { auditAtomicitySuite } from "./contract/auditAtomicity.js"
import { tenancySuite } from "./contract/tenancy.js"
import { productJsonSuite } from "./contract/productJson.js"
import { storedRowsSuite } from "./contract/storedRows.js"

const storage = SqliteStorage.layer(":memory:")

tenancySuite("sqlite: tenancy", storage)
modifiersSuite("sqlite: modifiers", storage)
schemaSuite("sqlite: schema", storage)
outboxSuite("sqlite: outbox", storage)
auditAtomicitySuite("sqlite: audit atomicity", storage)
productsSuite("sqlite: products", storage)
productQueriesSuite("sqlite: product queries", storage)
productFacetsSuite("sqlite: product facets", storage)
productOracleSuite("sqlite: product lists and facets against a model", storage, 25)
categoriesBrandsSuite("sqlite: categories and brands", storage)
storedRowsSuite("sqlite: lists read from stored rows", storage)
productJsonSuite("sqlite: product json", storage)
contentPagesSuite("sqlite: content pages", storage)
variantsSuite("sqlite: variants", storage)
productLinksSuite("sqlite: product links", storage)
mediaSuite("sqlite: media", storage)

// The organization's rows are committed away before its files go: a blob store that fails then
// is logged, and the deletion still answers.
const BrokenFolders = Layer.effect(
  BlobStore,
  Effect.map(BlobStore, (blobs) => BlobStore.of({ ...blobs, removeFolder: () => Effect.die(new Error("disk gone")) }))
).pipe(Layer.provide(MemoryBlobStore.layer))

layer(catalogLayer({ storage, blobs: BrokenFolders, webhooks: MemoryWebhookSender.layer(), sessionSecret: Redacted.make(SESSION_SECRET) }))(
  "sqlite: organization deletion with a failing blob store",
  (it) => {
    it.effect("answers the deletion, the organization being gone, and logs the files it could not remove", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const logs: Array<string> = []
        const capture = Logger.make(({ message }) => void logs.push(Arr.ensure(message).map(String).join(" ")))
        const deleted = yield* Effect.provideService((yield* Organizations).delete(organization.id, organization.slug), CurrentTenant, tenant).pipe(
          Effect.provide(Logger.replace(Logger.defaultLogger, capture))
        )
        expect(deleted.deletedCounts.organizations).toBe(1)
        expect(logs).toEqual([`the files of deleted organization ${organization.id} were not all removed Error: disk gone`])
      }))
  }
)
