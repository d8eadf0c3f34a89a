import { describe, expect, it } from "vitest"
import { boundaryOf, Utf8FilenameRewriter } from "../../hosts/http/media/Utf8Filenames.js"

const body = (disposition: string, content = "bytes\r\n--not-the-boundary\r\n", around = { preamble: "", epilogue: "" }) =>
  Buffer.from(around.preamble + [
    "--b0undary",
    `Content-Disposition: ${disposition}`,
    "Content-Type: image/png",
    "",
    content,
    "--b0undary",
    'Content-Disposition: form-data; name="alt"',
    "",
    "中文",
    "--b0undary--",
    ""
  ].join("\r\n") + around.epilogue)

/** The rewriter's output for `input` cut into pieces at `cuts`. */
const rewrite = (input: Buffer, cuts: ReadonlyArray<number>, boundary?: string) => {
  const rewriter = new Utf8FilenameRewriter(boundary)
  const out: Array<Buffer> = []
  let from = 0
  for (const cut of [...cuts, input.length]) {
    out.push(rewriter.push(input.subarray(from, cut)))
    from = cut
  }
  out.push(rewriter.end())
  return Buffer.concat(out).toString()
}

const everyCut = (input: Buffer) => Array.from({ length: input.length - 1 }, (_, i) => [i + 1])

describe("Utf8FilenameRewriter", () => {
  it("turns a raw UTF-8 quoted file name into filename*, keeping its backslashes, wherever the chunks are cut", () => {
    const input = body('form-data; name="file"; filename="C:\\\\dir\\中文 (1) 100%\\"\'.png"')
    const encoded = "C%3A%5C%5Cdir%5C%E4%B8%AD%E6%96%87%20%281%29%20100%25%5C%22%27.png"
    const expected = body(`form-data; name="file"; filename*=UTF-8''${encoded}`).toString()
    expect(decodeURIComponent(encoded)).toBe("C:\\\\dir\\中文 (1) 100%\\\"'.png")
    for (const boundary of [undefined, "b0undary"]) {
      expect(rewrite(input, [], boundary)).toBe(expected)
      for (const cuts of everyCut(input)) expect(rewrite(input, cuts, boundary)).toBe(expected)
      expect(rewrite(input, everyCut(input).flat(), boundary)).toBe(expected)
    }
  })

  it("finds the parts after a preamble when it knows the boundary, and leaves the epilogue out", () => {
    const around = { preamble: "A preamble\r\n--b0und\r\n", epilogue: "\r\n--b0undary\r\nContent-Disposition: form-data; filename=\"é\"\r\n\r\n" }
    const input = body('form-data; name="file"; filename="中.png"', "x", around)
    const expected = body("form-data; name=\"file\"; filename*=UTF-8''%E4%B8%AD.png", "x", { ...around, epilogue: "" }).toString()
    expect(rewrite(input, [], "b0undary")).toBe(expected)
    for (const cuts of everyCut(input)) expect(rewrite(input, cuts, "b0undary")).toBe(expected)
    // Without the boundary, a body that does not open with its delimiter is left as it is.
    expect(rewrite(input, [], undefined)).toBe(input.toString())
  })

  it("leaves ASCII names, an existing filename* and field values as they are", () => {
    for (
      const input of [
        body('form-data; name="file"; filename="plain.png"'),
        body("form-data; name=\"file\"; filename=\"中文.png\"; filename*=UTF-8''x.png"),
        body('form-data; name="file"; filename="a.png"', 'filename="中文"')
      ]
    ) {
      expect(rewrite(input, [])).toBe(input.toString())
      expect(rewrite(input, [7, 40], "b0undary")).toBe(input.toString())
    }
  })

  it("rewrites a header block of up to 64 KB however it arrives, and passes a larger one as it came", () => {
    const long = body(`form-data; name="file"; filename="${"名".repeat(6000)}.txt"`)
    const rewritten = rewrite(long, [], "b0undary")
    for (const size of [7, 1000, 4096]) {
      const cuts = Array.from({ length: Math.floor(long.length / size) }, (_, i) => (i + 1) * size)
      expect(rewrite(long, cuts, "b0undary")).toBe(rewritten)
    }
    expect(rewritten).toContain("filename*=UTF-8''")
    const huge = body(`form-data; name="file"; filename="${"名".repeat(23000)}.txt"`)
    expect(rewrite(huge, [], "b0undary")).toBe(huge.toString())
    expect(rewrite(huge, [1000, 2000, 30000], "b0undary")).toBe(huge.toString())
  })

  it("keeps the last 1,024 characters of a longer name, where the file name is", () => {
    const input = body(`form-data; name="file"; filename="${"目".repeat(3000)}/名.png"`)
    const name = decodeURIComponent(/filename\*=UTF-8''([^\r]+)/.exec(rewrite(input, [], "b0undary"))?.[1] ?? "")
    expect([Array.from(name).length, name.endsWith("目/名.png")]).toEqual([1024, true])
  })

  it("passes a body cut before its closing boundary through whole", () => {
    const input = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="中.txt"\r\n\r\nabc')
    expect(rewrite(input, [30])).toBe(
      "--b\r\nContent-Disposition: form-data; name=\"file\"; filename*=UTF-8''%E4%B8%AD.txt\r\nContent-Type: application/octet-stream\r\n\r\nabc"
    )
    const headersOnly = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="中.txt"')
    expect(rewrite(headersOnly, [10], "b")).toBe(headersOnly.toString())
  })

  it("types a file part named by filename* without a Content-Type as application/octet-stream, as the parser types one named by filename", () => {
    const untyped = (disposition: string) => Buffer.from(`--b\r\nContent-Disposition: ${disposition}\r\n\r\nabc\r\n--b--\r\n`)
    const typed = (disposition: string, type = "application/octet-stream") =>
      `--b\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${type}\r\n\r\nabc\r\n--b--\r\n`
    const sent = untyped("form-data; name=\"file\"; filename*=UTF-8''na%C3%AFve.txt")
    for (const cuts of [[], ...everyCut(sent)]) expect(rewrite(sent, cuts, "b")).toBe(typed("form-data; name=\"file\"; filename*=UTF-8''na%C3%AFve.txt"))
    expect(rewrite(untyped('form-data; name="file"; filename="中.txt"'), [], "b")).toBe(typed("form-data; name=\"file\"; filename*=UTF-8''%E4%B8%AD.txt"))
    for (const kept of [untyped('form-data; name="file"; filename="plain.txt"'), untyped('form-data; name="alt"')]) {
      expect(rewrite(kept, [], "b")).toBe(kept.toString())
    }
    const withType = Buffer.from(typed("form-data; name=\"file\"; filename*=UTF-8''a.png", "image/png"))
    expect(rewrite(withType, [], "b")).toBe(withType.toString())
  })

  it("reads the boundary of a content type, quoted or not", () => {
    expect(["multipart/form-data; boundary=abc", 'multipart/form-data; charset=utf-8; BOUNDARY="a b;c"', "multipart/form-data", undefined].map(boundaryOf))
      .toEqual(["abc", "a b;c", undefined, undefined])
  })
})
