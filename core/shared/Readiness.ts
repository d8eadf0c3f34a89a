import { Context, type Effect } from "effect"

/** Whether the storage answers: what `/readyz` reports. */
export class Readiness extends Context.Tag("catalog/Readiness")<Readiness, {
  readonly check: Effect.Effect<boolean>
}>() {}
