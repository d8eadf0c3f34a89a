/**
 * Facet copies by organization, within two limits: products over all copies, and copies. An
 * organization with no products still holds a copy, so the products alone would let one per
 * organization ever counted pile up. Beyond either limit the least recently used go first,
 * except the one just used; a deleted organization's copy is never used again, so it goes too.
 */
export const makeFacetCopies = <C extends { readonly size: number }>(limits: {
  readonly maxProducts: number
  readonly maxOrganizations: number
}) => {
  // Most recently used last: a map iterates in insertion order.
  const copies = new Map<string, C>()
  return {
    get: (organizationId: string): C | undefined => copies.get(organizationId),
    forget: (organizationId: string): void => {
      copies.delete(organizationId)
    },
    /** Keeps `copy` as the most recently used, and drops the least recently used beyond the limits. */
    remember: (organizationId: string, copy: C): void => {
      copies.delete(organizationId)
      copies.set(organizationId, copy)
      // Copies grow in place as they catch up, so their products are summed afresh.
      let products = 0
      for (const c of copies.values()) products += c.size
      for (const [id, c] of copies) {
        if ((products <= limits.maxProducts && copies.size <= limits.maxOrganizations) || id === organizationId) break
        copies.delete(id)
        products -= c.size
      }
    },
    organizations: (): ReadonlyArray<string> => [...copies.keys()]
  }
}
