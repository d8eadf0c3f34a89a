import type { UnitOfWork } from "../shared/UnitOfWork.js"

/**
 * A write of attribute values checks them against the attributes' definitions; a change to a
 * definition (deleting it, renaming its code, changing its type) rewrites or removes the
 * values stored under it. Where transactions run side by side (Postgres), a write that
 * checked its values before such a change committed could commit them after it: a value under
 * a code that no longer exists, or of a type it no longer has. So a transaction that writes
 * values holds its organization's definitions shared, before it reads anything, and a change
 * to a definition holds them alone. Reads hold nothing.
 */
const KIND = "attribute-definitions"

export const holdDefinitions = (uow: typeof UnitOfWork.Service, organizationId: string) => uow.share(KIND, [organizationId])

export const changeDefinitions = (uow: typeof UnitOfWork.Service, organizationId: string) => uow.lock(KIND, [organizationId])
