import * as Migrator from "@effect/sql/Migrator"
import { migrations } from "../../adapters/sql/migrations/index.js"

/** Runs the migrations up to and including id `last`: a database as an older version left it. */
export const upTo = (last: number) =>
  Migrator.make({})({ loader: Migrator.fromRecord(Object.fromEntries(Object.entries(migrations).filter(([key]) => Number(key.split("_")[0]) <= last))) })
