import { describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { changelog, VERSION } from "../../hosts/http/Release.js"

describe("the release", () => {
  it("names one version in package.json, the changelog's first entry and /healthz", () => {
    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package.json"), "utf8"))
    expect(changelog.entries[0]?.version).toBe(pkg.version)
    expect(changelog.version).toBe(pkg.version)
    expect(VERSION).toBe(pkg.version)
  })

  it("lists the changelog newest first", () => {
    const dates = changelog.entries.map((e) => e.date)
    expect([...dates].sort().reverse()).toEqual(dates)
  })
})
