import { describe, expect, it } from "vitest"
import { Utf8FilenameRewriter } from "../../hosts/http/media/Utf8Filenames.js"

const body = (disposition: string, content = "bytes\r\n--not-the-boundary\r\n") =>
  Buffer.from([
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
  ].join("\r\n"))

/** The rewriter's output for `input` cut into pieces at `cuts`. */
const rewrite = (input: Buffer, cuts: ReadonlyArray<number>) => {
  const rewriter = new Utf8FilenameRewriter()
  const out: Array<Buffer> = []
  let from = 0
  for (const cut of [...cuts, input.length]) {
    out.push(rewriter.push(input.subarray(from, cut)))
    from = cut
  }
  out.push(rewriter.end())
  return Buffer.concat(out).toString()
}

describe("Utf8FilenameRewriter", () => {
  it("turns a raw UTF-8 quoted file name into filename*, wherever the chunks are cut", () => {
    const input = body('form-data; name="file"; filename="中文 (1) 100%\\"\'.png"')
    const expected = body("form-data; name=\"file\"; filename*=UTF-8''%E4%B8%AD%E6%96%87%20%281%29%20100%25%22%27.png").toString()
    expect(rewrite(input, [])).toBe(expected)
    for (let cut = 1; cut < input.length; cut++) expect(rewrite(input, [cut])).toBe(expected)
    expect(rewrite(input, Array.from({ length: input.length - 1 }, (_, i) => i + 1))).toBe(expected)
    expect(decodeURIComponent("%E4%B8%AD%E6%96%87%20%281%29%20100%25%22%27.png")).toBe("中文 (1) 100%\"'.png")
  })

  it("leaves ASCII names, an existing filename*, field values and bodies with a preamble as they are", () => {
    for (
      const input of [
        body('form-data; name="file"; filename="plain.png"'),
        body("form-data; name=\"file\"; filename=\"中文.png\"; filename*=UTF-8''x.png"),
        body('form-data; name="file"; filename="a.png"', 'filename="中文"'),
        Buffer.concat([Buffer.from("preamble\r\n"), body('form-data; name="file"; filename="中文.png"')])
      ]
    ) {
      expect(rewrite(input, [])).toBe(input.toString())
      expect(rewrite(input, [7, 40])).toBe(input.toString())
    }
  })

  it("passes a body cut before its closing boundary through whole", () => {
    const input = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="中.txt"\r\n\r\nabc')
    expect(rewrite(input, [30])).toBe("--b\r\nContent-Disposition: form-data; name=\"file\"; filename*=UTF-8''%E4%B8%AD.txt\r\n\r\nabc")
    const headersOnly = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="中.txt"')
    expect(rewrite(headersOnly, [10])).toBe(headersOnly.toString())
  })
})
