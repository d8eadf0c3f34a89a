import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { refreshFoldedTexts } from "../ProductIndexRefresh.js"

const Ids = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String }))

/**
 * Search text reads a `<` of rich text that starts no tag (one not followed by a letter, `/`,
 * `!` or `?`, as in `volume <10 dB, weight >2 kg`) as text, as a browser shows it: it used to
 * drop everything up to the next `>`. The products whose values hold such a `<` get their
 * search text made again, where it changes; no other product is written.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const bare = sql.onDialectOrElse({
    pg: () => sql`attributes::text ~ '<[^a-zA-Z/!?]'`,
    orElse: () => sql`attributes glob '*<[^a-zA-Z/!?]*'`
  })
  const marked = yield* sql`select id, organization_id from products where ${bare}`.pipe(Effect.flatMap(Schema.decodeUnknown(Ids)))
  yield* refreshFoldedTexts(sql, [], marked)
})
