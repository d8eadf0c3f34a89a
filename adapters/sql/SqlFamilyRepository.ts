import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Option, Schema } from "effect"
import { EntityKind, isRequiredOf, Requirement, ValidationRules } from "../../core/schema/Attribute.js"
import { AttributeType } from "../../core/schema/AttributeValues.js"
import { Family, FamilyAttributeEntry, isRequiredOverrideOf } from "../../core/schema/Family.js"
import { type AttachmentRecord, type FamilyAttribute, FamilyRepository } from "../../core/schema/FamilyRepository.js"
import { Conflict } from "../../core/shared/Errors.js"
import { LocalizedLabel } from "../../core/shared/Fields.js"
import { BooleanColumn, IntColumn, JsonColumn, toJson } from "./Columns.js"
import { isForeignKeyViolation, isUniqueViolation } from "./SqlErrors.js"
import { refreshFamilyHolders } from "./ProductIndexRefresh.js"
import { storedRecords } from "./StoredRecords.js"

const FamilyRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  code: Schema.String,
  entityKind: EntityKind,
  label: JsonColumn(LocalizedLabel),
  description: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})

const AttachmentRow = Schema.Struct({
  organizationId: Schema.String,
  familyId: Schema.String,
  attributeId: Schema.String,
  requirementOverride: Schema.NullOr(Requirement),
  position: IntColumn,
  createdAt: Schema.String,
  updatedAt: Schema.String
})
const decodeAttachments = Schema.decodeUnknown(Schema.Array(AttachmentRow))

const EntryRow = Schema.Struct({
  familyId: Schema.String,
  attributeId: Schema.String,
  requirementOverride: Schema.NullOr(Requirement),
  position: IntColumn,
  code: Schema.String,
  type: AttributeType,
  label: JsonColumn(LocalizedLabel),
  isLocalizable: BooleanColumn,
  isScopable: BooleanColumn,
  requirement: Requirement,
  isVariantAxis: BooleanColumn,
  validation: Schema.NullOr(JsonColumn(ValidationRules))
})
const decodeEntries = Schema.decodeUnknown(Schema.Array(EntryRow))

/** The row was decoded and the rest is derived from it: nothing left for the constructor to check. */
const toEntry = (r: typeof EntryRow.Type): FamilyAttributeEntry => {
  const effective = r.requirementOverride ?? r.requirement
  return new FamilyAttributeEntry({
    ...r,
    isRequiredOverride: isRequiredOverrideOf(r.requirementOverride),
    isRequired: isRequiredOf(r.requirement),
    effectiveRequirement: effective,
    effectiveIsRequired: isRequiredOf(effective)
  }, true)
}

const toFamilyAttribute = (e: FamilyAttributeEntry): FamilyAttribute => ({
  attributeId: e.attributeId,
  code: e.code,
  type: e.type,
  isLocalizable: e.isLocalizable,
  isScopable: e.isScopable,
  validation: e.validation,
  effectiveRequirement: e.effectiveRequirement,
  isVariantAxis: e.isVariantAxis,
  position: e.position
})

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const families = storedRecords(FamilyRow, Family)
  const family = (rows: ReadonlyArray<unknown>) => Effect.map(families(rows), Array.head)
  const attachment = (rows: ReadonlyArray<unknown>): Effect.Effect<Option.Option<AttachmentRecord>> =>
    Effect.map(Effect.orDie(decodeAttachments(rows)), Array.head)
  const familyColumns = (f: Family) => ({ ...f, label: toJson(f.label) })

  const findById = (organizationId: string, id: string) =>
    sql`select * from attribute_families where organization_id = ${organizationId} and id = ${id}`.pipe(
      Effect.orDie,
      Effect.flatMap(family)
    )

  const entries = (organizationId: string, familyId: string) =>
    sql`select fa.family_id, fa.attribute_id, fa.requirement_override, fa.position,
               a.code, a.type, a.label, a.is_localizable, a.is_scopable, a.requirement, a.is_variant_axis, a.validation
        from family_attributes fa join attributes a on a.id = fa.attribute_id
        where fa.organization_id = ${organizationId} and fa.family_id = ${familyId}
        order by fa.position, a.code`.pipe(
      Effect.orDie,
      Effect.flatMap((rows) => Effect.orDie(decodeEntries(rows))),
      Effect.map((rows) => rows.map(toEntry))
    )

  return FamilyRepository.of({
    insert: (f) =>
      sql`insert into attribute_families ${sql.insert(familyColumns(f))}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e) ? Effect.fail(new Conflict({ message: `a family with code ${f.code} already exists` })) : Effect.die(e)
        )
      ),
    insertProvisioned: (f) =>
      sql`insert into attribute_families ${sql.insert(familyColumns(f))} on conflict do nothing returning id`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.length > 0)
      ),
    list: (organizationId, entityKind) =>
      sql`select * from attribute_families where organization_id = ${organizationId} and entity_kind = ${entityKind}
          order by code`.pipe(Effect.orDie, Effect.flatMap(families)),
    findById,
    update: (organizationId, id, changes) => {
      const set: Record<string, unknown> = { updatedAt: changes.updatedAt }
      if (changes.label !== undefined) set["label"] = toJson(changes.label)
      if (changes.description !== undefined) set["description"] = changes.description
      return sql`update attribute_families set ${sql.update(set)}
                 where organization_id = ${organizationId} and id = ${id} returning *`.pipe(Effect.orDie, Effect.flatMap(family))
    },
    delete: (organizationId, id) =>
      sql`delete from attribute_families where organization_id = ${organizationId} and id = ${id} returning id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.catchTag("SqlError", (e) =>
          isForeignKeyViolation(e)
            ? Effect.fail(new Conflict({ message: `family ${id} is still used by records; move or delete them first` }))
            : Effect.die(e)
        )
      ),
    attach: (a) =>
      sql`insert into family_attributes ${sql.insert({ ...a })}`.pipe(
        // The family's products that hold values of the attribute now sort and search by them.
        Effect.zipRight(refreshFamilyHolders(sql, a.organizationId, a.familyId, a.attributeId)),
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e)
            ? Effect.fail(new Conflict({ message: `attribute ${a.attributeId} is already attached to family ${a.familyId}` }))
            : Effect.die(e)
        )
      ),
    attachIfAbsent: (a) =>
      sql`insert into family_attributes ${sql.insert({ ...a })} on conflict (family_id, attribute_id) do nothing`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    updateAttachment: (organizationId, familyId, attributeId, changes) => {
      const set: Record<string, unknown> = { updatedAt: changes.updatedAt }
      if (changes.requirementOverride !== undefined) set["requirementOverride"] = changes.requirementOverride
      if (changes.position !== undefined) set["position"] = changes.position
      return sql`update family_attributes set ${sql.update(set)}
                 where organization_id = ${organizationId} and family_id = ${familyId} and attribute_id = ${attributeId}
                 returning *`.pipe(Effect.orDie, Effect.flatMap(attachment))
    },
    detach: (organizationId, familyId, attributeId) =>
      sql`delete from family_attributes
          where organization_id = ${organizationId} and family_id = ${familyId} and attribute_id = ${attributeId}
          returning attribute_id`.pipe(
        Effect.orDie,
        // The values stay with the products; the family no longer declares them, so they no longer sort or search.
        Effect.tap((rows) => (rows.length > 0 ? refreshFamilyHolders(sql, organizationId, familyId, attributeId) : Effect.void)),
        Effect.map((rows) => rows.length > 0)
      ),
    entries,
    schemaOf: (organizationId, familyId) =>
      Effect.gen(function*() {
        const found = yield* findById(organizationId, familyId)
        if (Option.isNone(found)) return Option.none()
        const list = yield* entries(organizationId, familyId)
        return Option.some({ family: found.value, attributes: list.map(toFamilyAttribute) })
      })
  })
})

export const layer = Layer.effect(FamilyRepository, make)
