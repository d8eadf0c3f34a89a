import { Effect, Option, Schema } from "effect"
import { shown } from "./Preview.js"

/** One reason a request was refused: where (`path` into the input) and why. */
export const Issue = Schema.Struct({
  path: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  message: Schema.String,
  code: Schema.String
})
export type Issue = typeof Issue.Type

/**
 * Appends `more` to `issues` one at a time. Spread into `push`, each issue would be an argument
 * of one call, and a body with a hundred thousand bad values overflows the stack.
 */
export const addIssues = (issues: Array<Issue>, more: Iterable<Issue>): void => {
  for (const issue of more) issues.push(issue)
}

/** A path step as the summary shows it: quoted where it is empty or holds a dot, a blank or a quote, which would blur the path. */
const stepText = (step: string | number): string =>
  typeof step === "number" || /^[^\s."]+$/.test(step) ? shown(String(step)) : JSON.stringify(shown(step))

/** The issues in one line, each after its path (a long step shown by its start): the message of a 422. */
const issuesSummary = (issues: ReadonlyArray<Pick<Issue, "path" | "message">>): string =>
  issues.map((i) => (i.path.length > 0 ? `${i.path.map(stepText).join(".")}: ${i.message}` : i.message)).join("; ")

/**
 * How many issues a refusal lists. A body of a hundred thousand bad values would otherwise be
 * answered with a hundred thousand issues, tens of megabytes; the first ones tell the client
 * what to fix.
 */
export const MAX_ISSUES = 100

/**
 * Whether a check has found all the issues a refusal can use: the first `MAX_ISSUES` and one
 * more, which says that there are more. A check over untrusted input of any size stops there,
 * so refusing five million bad values costs what refusing a hundred does.
 */
export const hasEnoughIssues = (issues: ReadonlyArray<Issue>): boolean => issues.length > MAX_ISSUES

/**
 * The input, or a business rule applied to it, rejected the write. `issues` holds at most
 * `MAX_ISSUES` of them, in the order of the input; `truncated` is set when there were more.
 */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()("ValidationFailed", {
  message: Schema.String,
  issues: Schema.Array(Issue),
  truncated: Schema.optional(Schema.Boolean)
}) {
  static one(path: ReadonlyArray<string | number>, message: string, code = "invalid"): ValidationFailed {
    return ValidationFailed.of([{ path, message, code }])
  }
  /**
   * The refusal listing the first `MAX_ISSUES` of `issues`, its message joining those;
   * `truncated` says that these are not all (a caller may know more were left out before).
   */
  static of(issues: ReadonlyArray<Issue>, truncated = false): ValidationFailed {
    if (issues.length <= MAX_ISSUES && !truncated) return new ValidationFailed({ message: issuesSummary(issues), issues })
    const listed = issues.slice(0, MAX_ISSUES)
    return new ValidationFailed({ message: `${issuesSummary(listed)}; and more issues not listed`, issues: listed, truncated: true })
  }
}

/** The entity does not exist, or belongs to another organization (the two are never told apart). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  entity: Schema.String,
  id: Schema.String
}) {
  override get message(): string {
    return `${this.entity} ${this.id} not found`
  }
}

/** What `lookup` found, or `NotFound` for the `entity` with that `id` where it found nothing. */
export const orNotFound = (entity: string, id: string) =>
  <A, E, R>(lookup: Effect.Effect<Option.Option<A>, E, R>): Effect.Effect<A, E | NotFound, R> =>
    Effect.flatMap(lookup, Option.match({
      onNone: () => Effect.fail(new NotFound({ entity, id })),
      onSome: Effect.succeed
    }))

/** A uniqueness clash or a write that the current state forbids (a family still in use). */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String
}) {}

/** Authenticated, but not allowed. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {}

/** Missing, malformed, unknown, revoked or expired credentials. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  message: Schema.String
}) {}

/**
 * The organization a tenant transaction wrote to was deleted before the write committed: its
 * credentials were resolved just before the deletion, or are still cached by another process.
 * Any write may meet it, so the unit of work raises it as a defect; the host answers it as it
 * answers the credentials of a deleted organization.
 */
export class OrganizationGone extends Schema.TaggedError<OrganizationGone>()("OrganizationGone", {
  organizationId: Schema.String
}) {
  override get message(): string {
    return `organization ${this.organizationId} no longer exists`
  }
}

/**
 * The database cannot do what was asked, through no fault of the request: it refuses or drops
 * connections, does not answer in time, is shutting down, or has no room left to write. Any
 * storage call may meet it, so the unit of work raises it as a defect;
 * the host answers 503, which a client may try again, where a fault is a 500.
 */
export class StorageUnavailable extends Schema.TaggedError<StorageUnavailable>()("StorageUnavailable", {
  message: Schema.String
}) {}

/** A body or upload over its size limit. */
export class TooLarge extends Schema.TaggedError<TooLarge>()("TooLarge", {
  message: Schema.String
}) {}
