import { Schema } from "effect"
import changelogJson from "../../changelog.json" with { type: "json" }
import packageJson from "../../package.json" with { type: "json" }

const ChangelogEntry = Schema.Struct({
  version: Schema.String,
  date: Schema.String,
  title: Schema.String,
  highlights: Schema.Array(Schema.Struct({ type: Schema.Literal("feature", "fix", "perf", "docs"), text: Schema.String }))
})

export const Changelog = Schema.Struct({ version: Schema.String, entries: Schema.Array(ChangelogEntry) })

const entries = Schema.decodeUnknownSync(Schema.Struct({ entries: Schema.NonEmptyArray(ChangelogEntry) }))(changelogJson).entries

/** The release notes kept in the repository, newest first; the first entry is the deployed version. */
export const changelog: typeof Changelog.Type = { version: entries[0].version, entries }

export const SERVICE_NAME = "catalog-service"
export const VERSION: string = packageJson.version
/** The version of the interface this release implements, as the specification numbers it; `VERSION` is the release's own. */
export const INTERFACE_VERSION = "0.31.2"
