import { Effect } from "effect"
import type { CreateAttribute, EntityKind } from "../../core/schema/Attribute.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { Crypto } from "../../core/shared/Crypto.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"

/** An attribute to create: text at the default scope unless told otherwise. */
export const attr = (code: string, more: Partial<CreateAttribute> = {}): CreateAttribute => ({ code, label: { en: code }, type: "text", ...more })

/** One value at the default scope (no locale, no channel). */
export const entry = (value: unknown) => [{ locale: null, channel: null, value }]

/** A new family of `entityKind` in `tenant`'s organization with these attributes (of the same kind) attached. */
export const familyWith = (tenant: typeof CurrentTenant.Service, entityKind: "product" | "content", attributes: ReadonlyArray<CreateAttribute>) =>
  Effect.gen(function*() {
    const families = yield* Families
    const attributeService = yield* Attributes
    const suffix = (yield* (yield* Crypto).uuid).replace(/-/g, "").slice(-12)
    const family = yield* families.create({ code: `f_${suffix}`, label: { en: "Family" }, entityKind })
    for (const input of attributes) {
      const kind: EntityKind = entityKind
      const created = yield* attributeService.create({ ...input, entityKind: kind })
      yield* families.attach(family.id, { attributeId: created.id })
    }
    return family
  }).pipe(Effect.provideService(CurrentTenant, tenant), Effect.orDie)
