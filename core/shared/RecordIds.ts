import { Effect } from "effect"
import { NotFound } from "./Errors.js"
import { isUuid } from "./Fields.js"

/** Whether `s` can be a record's id: a UUID as the records hold them, lower-case. */
export const isRecordId = (s: string): boolean => isUuid(s) && s === s.toLowerCase()

/**
 * The service, its use cases named in `ids` answering NotFound for an argument no record can
 * have, without asking the storage: `ids` names each one's arguments in order, with the entity
 * the NotFound names (null for one that is not an id). Each of those use cases fails with
 * NotFound already. The host decodes its path ids to lower-case UUIDs first; an app embedding the
 * catalog may pass any text, which Postgres refused as a `uuid` (a defect) where SQLite found nothing.
 */
export const withRecordIds = <S extends Record<string, unknown>>(
  service: S,
  ids: { readonly [K in keyof S]?: ReadonlyArray<string | null> }
): S => {
  const guarded: Record<string, unknown> = { ...service }
  for (const [name, entities] of Object.entries(ids) as Array<[string, ReadonlyArray<string | null>]>) {
    const useCase = guarded[name] as (...args: Array<unknown>) => Effect.Effect<unknown, unknown, unknown>
    guarded[name] = (...args: Array<unknown>) => {
      for (let i = 0; i < entities.length; i++) {
        const entity = entities[i]
        const id = args[i]
        if (entity != null && typeof id === "string" && !isRecordId(id)) return Effect.fail(new NotFound({ entity, id }))
      }
      return useCase(...args)
    }
  }
  return guarded as S
}
