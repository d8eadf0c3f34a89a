import { Config, ConfigError, Effect, Either, Option, Redacted, Schema } from "effect"
import { invalidExemptions } from "../../adapters/webhooks/AddressGuard.js"
import { isEmailAddress, Slug } from "../../core/shared/Fields.js"

/** The deployment's configuration, from the environment (see README, Configuration). */
export interface HostConfig {
  readonly port: number
  readonly host: string
  readonly databaseUrl: string
  readonly tenancy: "single" | "multi"
  readonly bootstrapOrgSlug: string
  readonly bootstrapApiKey: Option.Option<Redacted.Redacted>
  readonly bootstrapAdminEmail: Option.Option<string>
  readonly serviceKey: Option.Option<Redacted.Redacted>
  readonly sessionSecret: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly webhookAllowedPrivateAddresses: ReadonlyArray<string>
  readonly contentPagesEntitled: boolean
  readonly logLevel: "trace" | "debug" | "info" | "warn" | "error" | "fatal"
}

/**
 * A string variable that holds something and that `parse` takes, else a refusal naming it. Empty
 * or only whitespace is a slip (a template left unfilled, a stray space in an env file), never a
 * value: taken as given, a blank HOST, data folder or session secret would be used as such.
 * `hint` follows the refusal of a blank one.
 */
const parsed = <A>(name: string, parse: (s: string) => Either.Either<A, string>, hint = "") =>
  Config.string(name).pipe(
    Config.mapOrFail((s) =>
      (s.trim().length > 0 ? parse(s) : Either.left(`${s.length === 0 ? "must not be empty" : "must not be only whitespace"}${hint}`)).pipe(
        Either.mapLeft((message) => ConfigError.InvalidData([], message))
      )
    )
  )

const text = (name: string, hint = "") => parsed(name, Either.right, hint)

/** A string variable that must satisfy `valid`; the error names the variable. */
const checked = (name: string, message: string, valid: (s: string) => boolean) =>
  parsed(name, (s) => (valid(s) ? Either.right(s) : Either.left(message)))

const LEAVE_UNSET = " (leave it unset to turn it off)"

/**
 * A secret that, when set, must hold something: an empty service key would let an empty
 * `x-pim-service-key` header create organizations.
 */
const secret = (name: string) => Config.option(text(name, LEAVE_UNSET).pipe(Config.map(Redacted.make)))

/**
 * The service key is compared with the `x-pim-service-key` header as Node reads it: trimmed of
 * spaces and tabs, without control characters, its bytes as Latin-1. A key that could not
 * arrive so would leave organization creation closed while start-up reported nothing wrong.
 */
const serviceKey = Config.option(
  parsed(
    "CATALOG_SERVICE_KEY",
    (s) =>
      /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(s)
        ? Either.right(Redacted.make(s))
        : Either.left("must be printable ASCII without spaces around it, as a header carries it"),
    LEAVE_UNSET
  )
)

const databaseUrl = checked(
  "DATABASE_URL",
  "must be sqlite:<path>, sqlite::memory: or postgres://...",
  (s) => /^sqlite:.+/.test(s) || /^postgres(ql)?:\/\//.test(s)
).pipe(Config.withDefault("sqlite:./data/catalog.db"))

const bootstrapApiKey = Config.option(
  checked("CATALOG_BOOTSTRAP_API_KEY", "must be pim_ followed by 43 base64url characters", (s) => /^pim_[A-Za-z0-9_-]{43}$/.test(s)).pipe(
    Config.map(Redacted.make)
  )
)

const splitList = (s: string): ReadonlyArray<string> => s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)

/** A comma-separated list; `valid` judges each entry. */
const list = (name: string, valid: (entry: string) => boolean = () => true, message = "has an invalid entry") =>
  Config.string(name).pipe(
    Config.validate({ message, validation: (s) => splitList(s).every(valid) }),
    Config.withDefault(""),
    Config.map(splitList)
  )

/** The variables of what a single-tenant start makes: its organization, key and admin invite. */
const bootstrap = {
  CATALOG_BOOTSTRAP_ORG_SLUG: Config.option(
    checked("CATALOG_BOOTSTRAP_ORG_SLUG", "must match ^[a-z0-9-]+$ and be at most 255 characters", Schema.is(Slug))
  ),
  CATALOG_BOOTSTRAP_API_KEY: bootstrapApiKey,
  CATALOG_BOOTSTRAP_ADMIN_EMAIL: Config.option(
    checked("CATALOG_BOOTSTRAP_ADMIN_EMAIL", "must be an email address", (s) => s.length <= 254 && isEmailAddress(s))
  )
}

/**
 * A multi-tenant start makes no organization, key or invite: a bootstrap variable set there would
 * be ignored while the operator counts on it (a key that never works), so each one set is refused.
 */
const unreadInMulti = (set: Record<keyof typeof bootstrap, Option.Option<unknown>>) =>
  Object.entries(set).filter(([, value]) => Option.isSome(value)).map(([name]) =>
    ConfigError.InvalidData([name], "only a single-tenant start uses it and CATALOG_TENANCY is multi: unset it")
  )

export const hostConfig: Config.Config<HostConfig> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  host: text("HOST").pipe(Config.withDefault("0.0.0.0")),
  databaseUrl,
  tenancy: Config.literal("single", "multi")("CATALOG_TENANCY").pipe(Config.withDefault("single" as const)),
  bootstrap: Config.all(bootstrap),
  serviceKey,
  sessionSecret: secret("CATALOG_SESSION_SECRET"),
  dataDir: text("CATALOG_DATA_DIR").pipe(Config.withDefault("./data")),
  webhookAllowedPrivateAddresses: list(
    "CATALOG_WEBHOOK_ALLOWED_PRIVATE_ADDRESSES",
    (entry) => invalidExemptions([entry]).length === 0,
    "must be comma-separated IPs or CIDRs"
  ),
  contentPagesEntitled: Config.boolean("CATALOG_CONTENT_PAGES_ENTITLED").pipe(Config.withDefault(true)),
  logLevel: Config.literal("trace", "debug", "info", "warn", "error", "fatal")("LOG_LEVEL").pipe(Config.withDefault("info" as const))
}).pipe(
  Config.mapOrFail(({ bootstrap, ...config }) => {
    const [first, ...more] = config.tenancy === "multi" ? unreadInMulti(bootstrap) : []
    if (first !== undefined) return Either.left(more.reduce<ConfigError.ConfigError>(ConfigError.And, first))
    return Either.right({
      ...config,
      bootstrapOrgSlug: Option.getOrElse(bootstrap.CATALOG_BOOTSTRAP_ORG_SLUG, () => "default"),
      bootstrapApiKey: bootstrap.CATALOG_BOOTSTRAP_API_KEY,
      bootstrapAdminEmail: bootstrap.CATALOG_BOOTSTRAP_ADMIN_EMAIL
    })
  })
)

/** One line naming each variable that is wrong, for the operator. */
const describeConfigError = (error: ConfigError.ConfigError): string => {
  const lines: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        return
      case "InvalidData":
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported":
        lines.push(`${e.path.join(".")}: ${e.message}`)
    }
  }
  walk(error)
  return `invalid configuration: ${lines.join("; ")}`
}

/** Reads the configuration, or fails with one clear line naming the offending variables. */
export const loadConfig: Effect.Effect<HostConfig, string> = Effect.either(hostConfig).pipe(
  Effect.flatMap(Either.match({ onLeft: (e) => Effect.fail(describeConfigError(e)), onRight: Effect.succeed }))
)

/** The database the URL names. */
export const databaseKind = (url: string): { readonly _tag: "sqlite"; readonly filename: string } | { readonly _tag: "postgres"; readonly url: string } =>
  url.startsWith("sqlite:") ? { _tag: "sqlite", filename: url.slice("sqlite:".length) } : { _tag: "postgres", url }
