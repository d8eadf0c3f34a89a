import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"

const root = resolve(import.meta.dirname, "../..")

const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : /\.ts$/.test(name) ? [path] : []
  })

/** Every module specifier a file imports or re-exports, statically or dynamically. */
const importsOf = (file: string): Array<string> => {
  const text = readFileSync(file, "utf8")
  const found: Array<string> = []
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']/g)) found.push(m[1]!)
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) found.push(m[1]!)
  for (const m of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) found.push(m[1]!)
  return found
}

const within = (file: string, specifier: string, folder: string) =>
  specifier.startsWith(".") && resolve(dirname(file), specifier).startsWith(join(root, folder) + "/")

describe("the dependency rule", () => {
  it("core imports only effect and other core files", () => {
    const offenders = sources(join(root, "core")).flatMap((file) =>
      importsOf(file)
        .filter((s) => !(s === "effect" || s.startsWith("effect/") || within(file, s, "core")))
        .map((s) => `${relative(root, file)} imports ${s}`)
    )
    expect(offenders).toEqual([])
  })

  it("adapters never import the hosts", () => {
    const offenders = sources(join(root, "adapters")).flatMap((file) =>
      importsOf(file).filter((s) => within(file, s, "hosts")).map((s) => `${relative(root, file)} imports ${s}`)
    )
    expect(offenders).toEqual([])
  })

  it("nothing outside the tests imports the tests", () => {
    const offenders = ["core", "adapters", "hosts"].flatMap((folder) =>
      sources(join(root, folder)).flatMap((file) =>
        importsOf(file).filter((s) => within(file, s, "test")).map((s) => `${relative(root, file)} imports ${s}`)
      )
    )
    expect(offenders).toEqual([])
  })

  it("sees the imports it checks (the scanner is not blind)", () => {
    const file = join(root, "core/tenancy/Organizations.ts")
    expect(importsOf(file)).toContain("effect")
    expect(importsOf(file).some((s) => within(file, s, "core"))).toBe(true)
    expect(within(join(root, "adapters/sql/SqlStorage.ts"), "../../hosts/http/Api.js", "hosts")).toBe(true)
  })
})

describe("the package an app installs", () => {
  const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  const dependencies = Object.keys(manifest(root).dependencies ?? {})
  const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")
  const shipped = [...["core", "adapters", "hosts"].flatMap((folder) => sources(join(root, folder))), join(root, "index.ts")]
  const imported = [...new Set(shipped.flatMap(importsOf).filter((s) => !s.startsWith(".") && !s.startsWith("node:")).map(packageOf))]
  const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }
  /** The package whose declarations TypeScript reads for `name`, imported from the package's entry. */
  const declaredBy = (name: string): string | undefined => {
    const resolved = ts.resolveModuleName(name, join(root, "index.ts"), options, ts.sys).resolvedModule
    if (resolved === undefined || !resolved.extension.startsWith(".d.")) return undefined
    const path = resolved.resolvedFileName.slice(resolved.resolvedFileName.lastIndexOf("/node_modules/") + "/node_modules/".length)
    return packageOf(path)
  }

  // The package is its TypeScript source: an app type-checks these files, with the
  // declarations of their imports, and installs no devDependencies of ours.
  it("depends on every package its sources import, and on the types of those that have none", () => {
    expect(imported).toContain("better-sqlite3")
    const missing = imported.flatMap((name) => {
      const types = declaredBy(name) ?? `declarations of ${name}`
      return [...new Set([name, types])].filter((needed) => !dependencies.includes(needed))
    })
    expect(missing).toEqual([])
  })
})
