import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

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
