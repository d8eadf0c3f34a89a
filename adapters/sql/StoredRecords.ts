import { Effect, Schema } from "effect"

/**
 * Records from rows this service wrote: `row` decodes the columns as stored (types, JSON, the
 * dialects' numbers and booleans), and the record is built from that without the domain
 * class's checks, which the record passed when it was written. Those checks (ids, labels,
 * options) cost each record far more than its row's decode: a list of 5,000 categories spent
 * most of its time in them. A row the row schema refuses is a defect, as before.
 */
export const storedRecords = <Row, I, Record>(
  row: Schema.Schema<Row, I>,
  record: new(props: Row, options: true) => Record
) => {
  const decode = Schema.decodeUnknown(Schema.Array(row))
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Record>> =>
    decode(rows).pipe(Effect.orDie, Effect.map((decoded) => decoded.map((r) => new record(r, true))))
}
