import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { Modifier } from "./Modifier.js"

export class ModifierRepository extends Context.Tag("catalog/ModifierRepository")<ModifierRepository, {
  /** Fails with Conflict when the code is taken in the organization. */
  readonly insert: (modifier: Modifier) => Effect.Effect<void, Conflict>
  readonly list: (organizationId: string) => Effect.Effect<ReadonlyArray<Modifier>>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<Modifier>>
  /** Fails with Conflict when the new code is taken in the organization. */
  readonly update: (modifier: Modifier) => Effect.Effect<void, Conflict>
  /** Answers whether a row was removed. */
  readonly remove: (organizationId: string, id: string) => Effect.Effect<boolean>
}>() {}
