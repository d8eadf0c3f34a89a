import type { HttpApi } from "@effect/platform"
import { ParseResult, Schema, SchemaAST as AST } from "effect"

/** The keys of a query's fields that take one value: sent twice, such a key arrives as a list. */
const singleValued = (query: AST.AST): ReadonlySet<string> => {
  const fields = AST.isRefinement(query) ? query.from : query
  if (!AST.isTypeLiteral(fields)) return new Set()
  const takesSeveral = (ps: AST.PropertySignature) => Schema.is(Schema.make(AST.encodedAST(ps.type)))(["", ""])
  return new Set(fields.propertySignatures.filter((ps) => !takesSeveral(ps)).map((ps) => String(ps.name)))
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null

/**
 * Each field's failure at a key sent more than once, where the field takes one value, said as
 * that: the schema's own words were `Expected string, actual ["5","6"]`.
 */
const sayRepeated = (issue: ParseResult.ParseIssue, keys: ReadonlySet<string>, query: Readonly<Record<string, unknown>>): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, sayRepeated(issue.issue, keys, query))
    case "Composite": {
      const issues = Array.isArray(issue.issues)
        ? (issue.issues.map((i) => sayRepeated(i, keys, query)) as unknown as typeof issue.issues)
        : sayRepeated(issue.issues as ParseResult.ParseIssue, keys, query)
      return new ParseResult.Composite(issue.ast, issue.actual, issues, issue.output)
    }
    case "Pointer": {
      const key = issue.path
      const values = typeof key === "string" && keys.has(key) ? query[key] : undefined
      if (!Array.isArray(values)) return issue
      const message = `is given ${values.length} times: it takes one value`
      return new ParseResult.Pointer(key, issue.actual, new ParseResult.Type(AST.stringKeyword, values, message))
    }
    default:
      return issue
  }
}

/**
 * The failure of a request's query, with each key sent more than once that takes one value
 * refused in those words; any other failure as it is. The queries are read off the API's
 * endpoints, once, at the first failure.
 */
export const repeatedKeysSaid = (api: HttpApi.HttpApi.Any) => {
  let queries: Map<AST.AST, ReadonlySet<string>> | undefined
  const queriesOf = () => {
    queries ??= new Map(
      Object.values((api as unknown as HttpApi.HttpApi.AnyWithProps).groups).flatMap((group) =>
        Object.values(group.endpoints).flatMap((endpoint) =>
          endpoint.urlParamsSchema._tag === "Some" ? [[endpoint.urlParamsSchema.value.ast, singleValued(endpoint.urlParamsSchema.value.ast)] as const] : []
        )
      )
    )
    return queries
  }
  return (error: ParseResult.ParseError): ParseResult.ParseError => {
    const issue = error.issue
    const keys = issue._tag === "Composite" || issue._tag === "Refinement" ? queriesOf().get(issue.ast) : undefined
    if (keys === undefined || keys.size === 0 || !isRecord(issue.actual)) return error
    return new ParseResult.ParseError({ issue: sayRepeated(issue, keys, issue.actual) })
  }
}
