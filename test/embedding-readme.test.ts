import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"

// The README's embedding samples, as an app copies them: each one compiles on its own, strict,
// importing the package by its name (the package refers to itself through its "exports").
// The package is its TypeScript source, so the app's compiler options check the package's files
// too: they must pass the strictest options an app commonly sets, not only the project's own.
const root = join(import.meta.dirname, "..")
const readme = readFileSync(join(root, "README.md"), "utf8")
const section = readme.slice(readme.indexOf("\n## Embedding"), readme.indexOf("\n## Tests"))
const samples = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)

describe("the README's embedding samples", () => {
  it("are there to check", () => {
    expect(samples.length).toBeGreaterThanOrEqual(3)
    for (const sample of samples) expect(sample).toContain(`from "catalog-service"`)
  })

  it("each compile as written, with the package's files, under an app's strictest options", () => {
    const files = new Map(samples.map((text, i) => [join(root, `readme-sample-${i}.ts`), text]))
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2022.d.ts"],
      types: ["node"],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noPropertyAccessFromIndexSignature: true,
      noImplicitReturns: true,
      noImplicitOverride: true,
      noFallthroughCasesInSwitch: true,
      allowUnreachableCode: false,
      allowUnusedLabels: false,
      skipLibCheck: true,
      noEmit: true
    }
    const host = ts.createCompilerHost(options)
    const { fileExists, readFile, getSourceFile } = host
    host.fileExists = (name) => files.has(name) || fileExists.call(host, name)
    host.readFile = (name) => files.get(name) ?? readFile.call(host, name)
    host.getSourceFile = (name, version, ...rest) => {
      const text = files.get(name)
      return text !== undefined ? ts.createSourceFile(name, text, version) : getSourceFile.call(host, name, version, ...rest)
    }
    const program = ts.createProgram([...files.keys()], options, host)
    const problems = ts.getPreEmitDiagnostics(program)
      .filter((d) => d.file !== undefined && !d.file.fileName.includes("/node_modules/"))
      .map((d) => `${d.file!.fileName.slice(root.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`)
    expect(problems).toEqual([])
  }, 180_000)
})
