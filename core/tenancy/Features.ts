import type { OrganizationSettings } from "./Organization.js"

/** An optional feature: `entitled` is the plan's answer, `enabled` the organization's preference. */
export interface FeatureState {
  readonly entitled: boolean
  readonly enabled: boolean
}

/** Content pages: enabled unless the organization turned them off. */
export const contentPagesFeature = (entitled: boolean, settings: OrganizationSettings | null): FeatureState => ({
  entitled,
  enabled: settings?.content_pages_enabled ?? true
})

/** A feature is usable only when both are true. */
export const isUsable = (feature: FeatureState): boolean => feature.entitled && feature.enabled
