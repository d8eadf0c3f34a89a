import { describe, expect, it } from "@effect/vitest"
import { join } from "node:path"
import ts from "typescript"

// The README promises an embedding app every type the use cases' signatures name, down to
// what their answers hold (a product list's items, a family's attributes), to name in its own code.
const root = join(import.meta.dirname, "..")
const USE_CASES = [
  "Organizations", "ApiKeys", "Authentication", "AttributeGroups", "Attributes", "Families", "Products", "Variants",
  "Categories", "Brands", "ContentPages", "MediaLibrary", "Modifiers", "ProductModifiers", "Relationships", "Connectors", "AuditLog"
]

/** The named types of the package's own sources that `type` holds, each with where it was met. */
const namedTypes = (checker: ts.TypeChecker, type: ts.Type, where: string, found: Map<string, string>, seen: Set<ts.Type>) => {
  if (seen.has(type)) return
  seen.add(type)
  const own = (symbol: ts.Symbol | undefined) => {
    const file = symbol?.declarations?.[0]?.getSourceFile().fileName ?? ""
    return file.startsWith(root) && !file.includes("/node_modules/")
  }
  const symbol = type.aliasSymbol ?? type.getSymbol()
  // Type parameters (`E` of an upload's stream) are the app's own; anonymous shapes have no name.
  if (own(symbol) && !(type.flags & ts.TypeFlags.TypeParameter) && !symbol!.name.startsWith("__")) {
    if (!found.has(symbol!.name)) found.set(symbol!.name, where)
  }
  const inner = [
    ...checker.getTypeArguments(type as ts.TypeReference),
    ...(type.aliasTypeArguments ?? []),
    ...(type.isUnionOrIntersection() ? type.types : []),
    ...type.getCallSignatures().flatMap((signature) => [
      ...signature.getParameters().map((p) => checker.getTypeOfSymbol(p)),
      signature.getReturnType()
    ])
  ]
  for (const t of inner) namedTypes(checker, t, where, found, seen)
  // The properties of the package's own shapes (a schema's type is an anonymous one, its name
  // erased), not those of effect's or Node's interfaces.
  const shape = type.getSymbol()
  if (type.flags & ts.TypeFlags.Object && (shape === undefined || own(shape) || shape.name.startsWith("__"))) {
    for (const property of type.getProperties()) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0]
      if (declaration !== undefined) {
        namedTypes(checker, checker.getTypeOfSymbolAtLocation(property, declaration), `${where}.${property.name}`, found, seen)
      }
    }
  }
}

describe("the types the package exports", () => {
  it("include every type the use cases take or answer, to any depth", () => {
    const program = ts.createProgram([join(root, "index.ts")], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: true,
      noEmit: true
    })
    const checker = program.getTypeChecker()
    const entry = checker.getSymbolAtLocation(program.getSourceFile(join(root, "index.ts"))!)!
    const exported = checker.getExportsOfModule(entry)
    const exportedNames = new Set(exported.map((s) => s.name))
    const found = new Map<string, string>()
    const seen = new Set<ts.Type>()
    for (const name of USE_CASES) {
      const tag = exported.find((s) => s.name === name)
      expect(tag, name).toBeDefined()
      const target = checker.getAliasedSymbol(tag!)
      const service = checker.getDeclaredTypeOfSymbol(target).getProperty("Type")!
      namedTypes(checker, checker.getTypeOfSymbol(service), name, found, seen)
    }
    // The walk sees what it checks: what use cases take and answer, and what those hold.
    expect([...found.keys()]).toEqual(expect.arrayContaining(["Product", "ProductList", "AuditFilter", "UploadPart", "BulkError"]))
    const unexported = [...found].filter(([name]) => !exportedNames.has(name)).map(([name, where]) => `${name} (${where})`)
    // A local alias of exported errors names nothing an app needs.
    expect(unexported.filter((u) => !u.startsWith("Failure "))).toEqual([])
  }, 180_000)
})
