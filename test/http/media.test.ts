import { createHash } from "node:crypto"
import { existsSync, readdirSync } from "node:fs"
import { Agent, type ClientRequest, request } from "node:http"
import { connect } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

const product = async (t: TestTenant, name = "Lamp") => {
  const family = await t.req("POST", "/v1/attribute-families", { body: { code: `f_${name.toLowerCase()}`, label: { en: name } } })
  const created = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name } })
  expect(created.status).toBe(201)
  return created.json.id as string
}

/** A multipart upload with the tenant's key; `parts` in the order given. */
const upload = async (t: TestTenant, productId: string, parts: ReadonlyArray<readonly [string, string | Blob, string?]>) => {
  const form = new FormData()
  for (const [key, value, filename] of parts) {
    if (typeof value === "string") form.append(key, value)
    else form.append(key, value, filename)
  }
  const res = await fetch(`${host.baseUrl}/v1/products/${productId}/media`, { method: "POST", headers: { authorization: `Bearer ${t.apiKey}` }, body: form })
  const text = await res.text()
  return { status: res.status, json: text.length > 0 ? JSON.parse(text) : undefined }
}

const blobFiles = () => {
  const walk = (dir: string): Array<string> =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [e.name]))
  try {
    return walk(join(host.config.dataDir, "blobs", "media"))
  } catch {
    return []
  }
}

describe("media over HTTP", () => {
  it("answers a body that ends inside a part, before its closing boundary, with 422 and keeps nothing", async () => {
    const t = await host.tenant()
    const desk = await product(t, "Cut")
    const filesBefore = blobFiles().length
    const body = Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc')
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${host.baseUrl}/v1/products/${desk}/media`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.apiKey}`, "content-type": "multipart/form-data; boundary=XyZ", "content-length": String(body.length) }
      }, (res) => {
        let text = ""
        res.on("data", (c: Buffer) => (text += c.toString()))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      })
      req.setTimeout(5000, () => req.destroy(new Error("no answer within 5 s")))
      req.on("error", reject)
      req.end(body)
    })
    expect([answer.status, JSON.parse(answer.body).error.code]).toEqual([422, "validation_failed"])
    expect(blobFiles().length).toBe(filesBefore)
  })

  it("answers an upload with no body at all with 422 at once, declared empty, undeclared or chunked", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Bodiless")
    const port = Number(new URL(host.baseUrl).port)
    const head = `POST /v1/products/${lamp}/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nConnection: close\r\n`
    for (const rest of ["Content-Length: 0\r\n\r\n", "\r\n", "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => socket.write(head + rest))
        socket.setTimeout(5000, () => socket.destroy(new Error("no answer within 5 s")))
        let text = ""
        socket.on("data", (c: Buffer) => (text += c.toString()))
        socket.on("end", () => resolve(text))
        socket.on("error", reject)
      })
      expect([rest, answer.split("\r\n")[0]]).toEqual([rest, "HTTP/1.1 422 Unprocessable Entity"])
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).error.details.issues[0].code).toBe("invalid_multipart")
    }
    expect((await t.req("GET", `/v1/products/${lamp}/media`)).json.data).toEqual([])
  })

  it("counts an alt text's 1,000 characters as characters, not UTF-16 units", async () => {
    const t = await host.tenant()
    const desk = await product(t, "Desk")
    const emoji = "😀".repeat(1000)
    const uploaded = await upload(t, desk, [["alt", emoji], ["file", new Blob(["x"], { type: "text/plain" }), "x.txt"]])
    expect([uploaded.status, uploaded.json.alt]).toEqual([201, emoji])
    const patch = (alt: string) => t.req("PATCH", `/v1/products/${desk}/media/${uploaded.json.id}`, { body: { alt } })
    const tooLong = await patch(`${emoji}😀`)
    expect([tooLong.status, tooLong.json.error.details.issues[0].path]).toEqual([422, ["alt"]])
    expect((await patch(`${emoji.slice(2)}é`)).status).toBe(200)
  })

  it("uploads (201) with size and sha256, streams the bytes back, lists, patches, detaches and deletes", async () => {
    const t = await host.tenant()
    const lamp = await product(t)
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251)
    const sha256 = createHash("sha256").update(bytes).digest("hex")
    // Fields after the file are read too.
    const first = await upload(t, lamp, [["file", new Blob([bytes], { type: "image/png" }), "C:\\photos\\lamp.png"], ["alt", "A lamp"]])
    expect(first.status).toBe(201)
    expect(first.json).toMatchObject({ productId: lamp, filename: "lamp.png", contentType: "image/png", size: bytes.length, sha256, alt: "A lamp", position: 0 })
    expect(first.json.url).toBe(`/v1/media/${first.json.id}/content`)
    const second = await upload(t, lamp, [["position", "0"], ["file", new Blob(["hello"], { type: "text/plain" }), "note.txt"]])
    expect(second.json).toMatchObject({ position: 0, alt: null, size: 5 })
    const nul = await upload(t, lamp, [["alt", "a\u0000b"], ["file", new Blob(["x"], { type: "text/plain" }), "x.txt"]])
    expect([nul.status, nul.json.error.details.issues[0]]).toEqual([422, { path: ["alt"], message: "must not contain the character U+0000", code: "invalid_character" }])
    // The same issue as a JSON body's, wherever the field comes.
    const after = await upload(t, lamp, [["file", new Blob(["x"], { type: "text/plain" }), "x.txt"], ["alt", "a\u0000b"]])
    const patched = await t.req("PATCH", `/v1/products/${lamp}/media/${first.json.id}`, { body: { alt: "a\u0000b" } })
    expect(after.json.error.details.issues).toEqual(patched.json.error.details.issues)

    const content = await t.req("GET", first.json.url)
    expect(content.status).toBe(200)
    expect(content.headers.get("content-type")).toBe("image/png")
    const fetched = await fetch(host.baseUrl + first.json.url, { headers: { authorization: `Bearer ${t.apiKey}` } })
    expect(createHash("sha256").update(new Uint8Array(await fetched.arrayBuffer())).digest("hex")).toBe(sha256)

    const list = await t.req("GET", `/v1/products/${lamp}/media`)
    expect(list.json).toMatchObject({ limit: 50, offset: 0, hasMore: false })
    expect(list.json.data.map((m: { id: string }) => m.id)).toEqual([first.json.id, second.json.id])
    // The product list shows the first media as the thumbnail.
    const products = await t.req("GET", "/v1/products")
    expect(products.json.data[0].thumbnailUrl).toBe(first.json.url)

    const moved = await t.req("PATCH", `/v1/products/${lamp}/media/${second.json.id}`, { body: { position: 5, alt: "Care" } })
    expect(moved.json).toMatchObject({ position: 5, alt: "Care" })
    for (const position of [-1, 2147483648, 1.5]) {
      const bad = await t.req("PATCH", `/v1/products/${lamp}/media/${second.json.id}`, { body: { position } })
      expect([position, bad.status, bad.json.error.details.issues]).toEqual([position, 422, [{ path: ["position"], message: "must be an integer from 0 to 2147483647", code: "invalid" }]])
    }
    expect((await t.req("DELETE", `/v1/products/${lamp}/media/${first.json.id}`)).status).toBe(204)
    expect((await t.req("GET", `/v1/products/${lamp}/media`)).json.data.map((m: { id: string }) => m.id)).toEqual([second.json.id])
    // Detached media stays until deleted.
    expect((await t.req("GET", `/v1/media/${first.json.id}`)).json.productId).toBe(null)
    expect((await t.req("GET", first.json.url)).status).toBe(200)
    expect((await t.req("DELETE", `/v1/media/${first.json.id}`)).status).toBe(204)
    expect((await t.req("GET", first.json.url)).status).toBe(404)
    expect(blobFiles()).not.toContain(first.json.id)

    const audit = await t.req("GET", "/v1/audit-log?entity_type=media")
    expect(audit.json.data.map((e: { name: string }) => e.name)).toEqual([
      "media.deleted",
      "media.detached",
      "media.association_updated",
      "media.attached",
      "media.attached"
    ])
  })

  it("takes a media or file attribute's default only when it names a media record of the organization", async () => {
    const t = await host.tenant()
    const other = await host.tenant()
    const mine = (await upload(t, await product(t, "Poster"), [["file", new Blob(["png"]), "poster.png"]])).json.id as string
    const theirs = (await upload(other, await product(other, "Flyer"), [["file", new Blob(["pdf"]), "flyer.pdf"]])).json.id as string
    const issues = (r: { status: number; json: any }) => [r.status, r.json.error?.details.issues.map((i: { path: unknown; code: string }) => [i.path, i.code])]
    for (const type of ["media", "file"]) {
      for (const missing of [theirs, "0190a5b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b"]) {
        const r = await t.req("POST", "/v1/attributes", { body: { code: `${type}_${missing.slice(-4)}`, label: {}, type, defaultValue: missing } })
        expect(issues(r)).toEqual([422, [[["defaultValue"], "unknown_media"]]])
      }
      const made = await t.req("POST", "/v1/attributes", { body: { code: `${type}_default`, label: {}, type, defaultValue: mine.toUpperCase() } })
      expect([made.status, made.json.defaultValue]).toEqual([201, mine])
      const patched = await t.req("PATCH", `/v1/attributes/${made.json.id}`, { body: { defaultValue: theirs } })
      expect(issues(patched)).toEqual([422, [[["defaultValue"], "unknown_media"]]])
    }
  })

  it("refuses uploads without exactly one file part, with bad fields, or to another organization's product", async () => {
    const t = await host.tenant()
    const other = await host.tenant()
    const lamp = await product(t)
    const theirs = await product(other, "Theirs")
    const file = (): readonly [string, Blob, string] => ["file", new Blob(["x"]), "x.bin"]
    expect((await upload(t, lamp, [["alt", "no file"]])).status).toBe(422)
    expect((await upload(t, lamp, [file(), file()])).status).toBe(422)
    expect((await upload(t, lamp, [["image", new Blob(["x"]), "x.bin"]])).status).toBe(422)
    for (const position of ["-1", "1.5", "abc", "2147483648", "9007199254740993"]) {
      const bad = await upload(t, lamp, [file(), ["position", position]])
      expect([position, bad.status, bad.json.error.details.issues]).toEqual([position, 422, [{ path: ["position"], message: "must be an integer from 0 to 2147483647", code: "invalid" }]])
      expect(bad.json.error.message).toBe("position: must be an integer from 0 to 2147483647")
    }
    const longAlt = await upload(t, lamp, [file(), ["alt", "a".repeat(1001)]])
    expect([longAlt.status, longAlt.json.error.details.issues]).toEqual([422, [{ path: ["alt"], message: "must be at most 1000 characters", code: "invalid" }]])
    expect((await upload(t, lamp, [file(), ["colour", "red"]])).status).toBe(422)
    const long = "c".repeat(3_000)
    const unknown = await upload(t, lamp, [file(), [long, "red"]])
    expect([unknown.status, unknown.json.error.details.issues]).toEqual([422, [{ path: [long], message: `unknown field ${"c".repeat(200)}…`, code: "unrecognized_key" }]])
    const foreign = await upload(t, theirs, [file()])
    expect([foreign.status, foreign.json.error.code]).toEqual([404, "not_found"])
    expect((await t.req("GET", `/v1/products/${lamp}/media`)).json.data).toEqual([])
    expect(blobFiles().filter((name) => name.endsWith(".part"))).toEqual([])
    const json = await t.req("POST", `/v1/products/${lamp}/media`, { body: { file: "x" } })
    expect([json.status, json.json.error.code]).toEqual([415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
    // Whatever the JSON holds, and however large: an upload never reads it.
    for (const rawBody of ['{"alt":"\\u0000"}', "{", JSON.stringify({ alt: "a".repeat(11 * 1024 * 1024) })]) {
      const refused = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody, headers: { "content-type": "application/json" } })
      expect([rawBody.slice(0, 12), refused.status, refused.json.error.code]).toEqual([rawBody.slice(0, 12), 415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
    }
    const noBoundary = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: "x", headers: { "content-type": "multipart/form-data" } })
    expect(noBoundary.status).toBe(422)
    // Only multipart/form-data itself: a type that merely begins with its name is another type.
    const form = ["--b", 'Content-Disposition: form-data; name="file"; filename="x.bin"', "", "x", "--b--", ""].join("\r\n")
    for (const type of ["multipart/form-datax; boundary=b", "multipart/form-data-2; boundary=b"]) {
      const lookalike = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: form, headers: { "content-type": type } })
      expect([type, lookalike.status, lookalike.json.error.code]).toEqual([type, 415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
    }
    expect((await t.req("GET", `/v1/products/${lamp}/media`)).json.data).toEqual([])
  })

  it("keeps a file name sent as raw UTF-8, as browsers and fetch send it, across every script", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Names")
    const bytes = new Uint8Array(200_000).map((_, i) => i % 253)
    for (const filename of ["中文 图片.png", "صورة.png", "фото 1.png", "🖼️ poster (2).png", "café.png", "it's *1*.png"]) {
      const r = await upload(t, lamp, [["file", new Blob([bytes], { type: "image/png" }), filename], ["alt", "名前"]])
      expect([r.status, r.json.filename, r.json.size, r.json.alt]).toEqual([201, filename, bytes.length, "名前"])
      const content = await fetch(host.baseUrl + r.json.url, { headers: { authorization: `Bearer ${t.apiKey}` } })
      // RFC 8187 leaves ' ( ) * out of a value's bare characters.
      const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      expect(content.headers.get("content-disposition")).toBe(`inline; filename*=UTF-8''${encoded}`)
      expect((await content.arrayBuffer()).byteLength).toBe(bytes.length)
    }
  })

  it("records a file part sent without a Content-Type as application/octet-stream, however its name is written", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Untyped")
    const send = async (disposition: string) => {
      const rawBody = ["--XyZ", `Content-Disposition: form-data; name="file"; ${disposition}`, "", "hello", "--XyZ--", ""].join("\r\n")
      const r = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
      const content = await fetch(host.baseUrl + r.json.url, { headers: { authorization: `Bearer ${t.apiKey}` } })
      return [r.status, r.json.filename, r.json.contentType, content.headers.get("content-type")]
    }
    for (const [disposition, filename] of [
      ['filename="a.txt"', "a.txt"],
      ["filename*=UTF-8''na%C3%AFve.txt", "naïve.txt"],
      ['filename="café.txt"', "café.txt"],
      // RFC 8187 lets the name carry its language between the quotes.
      ["filename*=UTF-8'en'na%C3%AFve.txt", "naïve.txt"],
      ["filename*=utf-8'de-CH'%C3%A9t%C3%A9.txt", "été.txt"]
    ]) {
      expect(await send(disposition!)).toEqual([201, filename, "application/octet-stream", "application/octet-stream"])
    }
    // A type that is not a media type counts as none; one that is, is kept lower-cased.
    const typed = async (type: string) => {
      const rawBody = ["--XyZ", 'Content-Disposition: form-data; name="file"; filename="a.bin"', `Content-Type: ${type}`, "", "hello", "--XyZ--", ""].join("\r\n")
      const r = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
      return [type, r.status, r.json.contentType, "warnings" in r.json]
    }
    for (const type of ["image", "image/png x", "a/b/c"]) expect(await typed(type)).toEqual([type, 201, "application/octet-stream", false])
    expect(await typed("Image/PNG; q=1")).toEqual(["Image/PNG; q=1", 201, "image/png", false])
  })

  it("completes an upload with warnings for an empty file and for a file name it changed, and none otherwise", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Caveats")
    const plain = await upload(t, lamp, [["file", new Blob(["x"], { type: "text/plain" }), "x.txt"]])
    expect([plain.status, "warnings" in plain.json]).toEqual([201, false])
    expect(plain.json).toEqual((await t.req("GET", `/v1/media/${plain.json.id}`)).json)
    const empty = await upload(t, lamp, [["file", new Blob([], { type: "text/plain" }), "empty.txt"]])
    expect([empty.status, empty.json.size, empty.json.warnings.map((w: { path: unknown; code: string }) => [w.path, w.code])])
      .toEqual([201, 0, [[["file"], "empty_file"]]])
    const rawBody = ["--XyZ", 'Content-Disposition: form-data; name="file"; filename="../photos/a.txt"', "", "hello", "--XyZ--", ""].join("\r\n")
    const raw = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
    expect([raw.status, raw.json.filename, raw.json.warnings.map((w: { path: unknown; code: string }) => [w.path, w.code])])
      .toEqual([201, "a.txt", [[["file"], "filename_changed"]]])
    expect(raw.json.warnings.every((w: { message: unknown }) => typeof w.message === "string" && w.message.length > 0)).toBe(true)
    // The message names each change the name may have had, the white space trimmed from it too.
    const spacedBody = ["--XyZ", 'Content-Disposition: form-data; name="file"; filename=" a.txt "', "", "hello", "--XyZ--", ""].join("\r\n")
    const spaced = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: spacedBody, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
    expect([spaced.status, spaced.json.filename, spaced.json.warnings]).toEqual([201, "a.txt", [{
      path: ["file"],
      message: 'the file name is stored as "a.txt": without directories, control characters or white space around it, at most 255 characters',
      code: "filename_changed"
    }]])
    // A part that names nothing is refused as such, not as a field of the empty name.
    const nameless = ["--XyZ", "Content-Type: text/plain", "", "hello", "--XyZ--", ""].join("\r\n")
    const unnamed = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: nameless, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
    expect([unnamed.status, unnamed.json.error.details.issues]).toEqual([422, [{ path: [], message: "every part needs a name: file, alt or position", code: "unrecognized_key" }]])
    // So is one whose Content-Disposition names none, also before the file part.
    for (const disposition of ["form-data", 'form-data; filename="b.txt"']) {
      const noName = ["--XyZ", `Content-Disposition: ${disposition}`, "", "hello", "--XyZ", 'Content-Disposition: form-data; name="file"; filename="a.txt"', "", "hello", "--XyZ--", ""].join("\r\n")
      const refused = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: noName, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
      expect([refused.status, refused.json.error.details.issues]).toEqual([422, [{ path: [], message: "every part needs a name: file, alt or position", code: "unrecognized_key" }]])
    }
    expect((await t.req("GET", `/v1/products/${lamp}/media`)).json.data).toHaveLength(4)
    // A part named file without a file name is text, as `curl -F file=<a.txt` sends it: not an unknown field.
    const textFile = ["--XyZ", 'Content-Disposition: form-data; name="file"', "", "hello", "--XyZ--", ""].join("\r\n")
    const asText = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: textFile, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
    expect([asText.status, asText.json.error.details.issues]).toEqual([422, [{ path: ["file"], message: "file must be sent as a file: its Content-Disposition needs a filename", code: "invalid_type" }]])
    // curl and fetch send a tab or another control character in the quoted name as it is.
    const controlled = ["--XyZ", 'Content-Disposition: form-data; name="file"; filename="a\tb\u0001c.txt"', "", "hello", "--XyZ--", ""].join("\r\n")
    const tabbed = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: controlled, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
    expect([tabbed.status, tabbed.json.filename, tabbed.json.warnings?.map((w: { code: string }) => w.code)]).toEqual([201, "abc.txt", ["filename_changed"]])
    // C1 control characters too (U+0080 to U+009F, such as NEL), sent as UTF-8 or as Latin-1.
    for (const encoding of ["utf8", "latin1"] as const) {
      const c1 = Buffer.from(["--XyZ", 'Content-Disposition: form-data; name="file"; filename="a\u0085b\u009fc.txt"', "", "hello", "--XyZ--", ""].join("\r\n"), encoding)
      const nel = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: c1, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
      expect([encoding, nel.status, nel.json.filename, nel.json.warnings?.map((w: { code: string }) => w.code)]).toEqual([encoding, 201, "abc.txt", ["filename_changed"]])
    }
    // A name that is not UTF-8 is read as the Latin-1 a legacy client sends.
    const latin1 = Buffer.from(["--XyZ", 'Content-Disposition: form-data; name="file"; filename="caf\u00e9.txt"', "", "hello", "--XyZ--", ""].join("\r\n"), "latin1")
    const legacy = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: latin1, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
    expect([legacy.status, legacy.json.filename, "warnings" in legacy.json]).toEqual([201, "caf\u00e9.txt", false])
    // A field that is not UTF-8 is refused at its name, before or after the file, as a JSON body that is not UTF-8 is;
    // one that names its charset is read in it.
    const file = ["--XyZ", 'Content-Disposition: form-data; name="file"; filename="a.txt"', "", "hello"]
    const alt = (type: string) => ["--XyZ", 'Content-Disposition: form-data; name="alt"', ...(type === "" ? [] : [`Content-Type: ${type}`]), "", "caf\u00e9"]
    const before = (await t.req("GET", `/v1/products/${lamp}/media?limit=200`)).json.data.length
    for (const parts of [[...alt(""), ...file], [...file, ...alt("")], [...file, ...alt("text/plain; charset=utf-8")]]) {
      const notUtf8 = Buffer.from([...parts, "--XyZ--", ""].join("\r\n"), "latin1")
      const refused = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: notUtf8, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
      expect([refused.status, refused.json.error?.details.issues]).toEqual([422, [{ path: ["alt"], message: "must be UTF-8 text", code: "invalid_character" }]])
    }
    expect((await t.req("GET", `/v1/products/${lamp}/media?limit=200`)).json.data.length).toBe(before)
    const named = Buffer.from([...file, ...alt("text/plain; charset=iso-8859-1"), "--XyZ--", ""].join("\r\n"), "latin1")
    const inLatin1 = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody: named, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
    expect([inLatin1.status, inLatin1.json.alt]).toEqual([201, "caf\u00e9"])
    // The record read back is the media alone.
    expect((await t.req("GET", `/v1/media/${raw.json.id}`)).json.warnings).toBeUndefined()
  })

  it("takes a file of any type, application/json too, and serves it back with that type", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Typed")
    for (const type of ["application/json", "text/plain", "application/pdf", "image/svg+xml"]) {
      const bytes = new TextEncoder().encode(`{"type": "${type}"}`)
      const r = await upload(t, lamp, [["file", new Blob([bytes], { type }), "data.bin"]])
      expect([type, r.status, r.json?.contentType, r.json?.size]).toEqual([type, 201, type, bytes.length])
      const content = await fetch(host.baseUrl + r.json.url, { headers: { authorization: `Bearer ${t.apiKey}` } })
      expect([content.headers.get("content-type"), new Uint8Array(await content.arrayBuffer())]).toEqual([type, bytes])
    }
  })

  it("serves a file's content with its length, an empty file's too", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Sized")
    for (const text of ["four", ""]) {
      const r = await upload(t, lamp, [["file", new Blob([text], { type: "text/plain" }), "size.txt"]])
      expect([r.status, r.json.size]).toEqual([201, text.length])
      const content = await fetch(host.baseUrl + r.json.url, { headers: { authorization: `Bearer ${t.apiKey}` } })
      expect([content.headers.get("content-length"), content.headers.get("transfer-encoding"), await content.text()]).toEqual([String(text.length), null, text])
    }
  })

  it("reads raw UTF-8 names after a preamble, takes an epilogue, strips directories and cuts long names at whole characters", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Raw")
    const send = async (filename: string, around = { preamble: "", epilogue: "" }) => {
      const rawBody = around.preamble + [
        "--XyZ",
        `Content-Disposition: form-data; name="file"; filename="${filename}"`,
        "Content-Type: image/png",
        "",
        "hello",
        "--XyZ--",
        ""
      ].join("\r\n") + around.epilogue
      const r = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody, headers: { "content-type": "multipart/form-data; boundary=XyZ" } })
      return [r.status, r.json.filename ?? r.json.error?.code]
    }
    expect(await send("中.png", { preamble: "This is a preamble\r\n", epilogue: "\r\nfoo\r\n\r\nbar\r\n" })).toEqual([201, "中.png"])
    expect(await send("a.png", { preamble: "", epilogue: "\r\n\r\n" })).toEqual([201, "a.png"])
    expect(await send("dir\\photo-é.png")).toEqual([201, "photo-é.png"])
    expect(await send("dir\\photo-e.png")).toEqual([201, "photo-e.png"])
    const long = await send(`${"a".repeat(254)}😀.png`)
    expect(long).toEqual([201, `${"a".repeat(254)}😀`])
    expect(await send(`${"中".repeat(3000)}.png`)).toEqual([201, "中".repeat(255)])
  })

  it("answers 422 to a body the platform's reader throws on, and takes an epilogue however its bytes arrive", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Chunks")
    const empty = await t.req("POST", `/v1/products/${lamp}/media`, {
      rawBody: '--XyZbound\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n--XyZbound--',
      headers: { "content-type": "multipart/form-data; boundary=XyZbound" }
    })
    expect([empty.status, empty.json.error.code]).toEqual([422, "validation_failed"])
    const form = '------bndQ\r\nContent-Disposition: form-data; name="file"; filename="ü.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n------bndQ--\r\nplain epilogue\r\n------bndQ--'
    for (const size of [2, 3, 7, 9]) {
      // Chunked transfer in `size`-byte chunks, the whole request in one write.
      const bytes = Buffer.from(form)
      const chunks: Array<Buffer> = []
      for (let at = 0; at < bytes.length; at += size) {
        const chunk = bytes.subarray(at, at + size)
        chunks.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n"))
      }
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(host.baseUrl).port), "127.0.0.1", () => {
          socket.write(Buffer.concat([
            Buffer.from(`POST /v1/products/${lamp}/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\n` +
              "Content-Type: multipart/form-data; boundary=----bndQ\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"),
            ...chunks,
            Buffer.from("0\r\n\r\n")
          ]))
        })
        let text = ""
        socket.on("data", (c: Buffer) => (text += c.toString()))
        socket.on("end", () => resolve(text))
        socket.on("error", reject)
      })
      expect([size, answer.split("\r\n")[0]]).toEqual([size, "HTTP/1.1 201 Created"])
      expect(answer).toContain('"filename":"ü.txt"')
    }
  })

  it("removes a deleted organization's files from the data directory, keeping its export and other organizations' files", async () => {
    const doomed = await host.tenant()
    const other = await host.tenant()
    const file = () => ["file", new Blob(["bytes"], { type: "text/plain" }), "a.txt"] as const
    expect((await upload(doomed, await product(doomed, "Doomed"), [file()])).status).toBe(201)
    expect((await upload(other, await product(other, "Kept"), [file()])).status).toBe(201)
    const folder = (id: string) => join(host.config.dataDir, "blobs", "media", id)
    expect(readdirSync(folder(doomed.organization.id))).toHaveLength(1)
    const deleted = await doomed.sreq("DELETE", `/v1/organizations/${doomed.organization.id}`, { body: { confirm: doomed.organization.slug } })
    expect(deleted.status).toBe(200)
    expect(existsSync(folder(doomed.organization.id))).toBe(false)
    expect(readdirSync(folder(other.organization.id))).toHaveLength(1)
    expect(existsSync(join(host.config.dataDir, "blobs", deleted.json.exportKey))).toBe(true)
  })

  it("answers an upload still streaming when its organization is deleted as for a missing product, keeping no file", async () => {
    const doomed = await host.tenant()
    const lamp = await product(doomed, "Streaming")
    expect((await upload(doomed, lamp, [["file", new Blob(["first"]), "a.txt"]])).status).toBe(201)
    const head = Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\n\r\n')
    const tail = Buffer.from("\r\n--XyZ--\r\n")
    const half = Buffer.alloc(64 * 1024, 1)
    let answered: (a: { status: number; body: string }) => void = () => {}
    const answer = new Promise<{ status: number; body: string }>((resolve) => (answered = resolve))
    const req = request(`${host.baseUrl}/v1/products/${lamp}/media`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${doomed.apiKey}`,
        "content-type": "multipart/form-data; boundary=XyZ",
        "content-length": String(head.length + 2 * half.length + tail.length)
      }
    }, (res) => {
      let text = ""
      res.on("data", (c: Buffer) => (text += c.toString()))
      res.on("end", () => answered({ status: res.statusCode ?? 0, body: text }))
    })
    req.on("error", () => {})
    req.write(Buffer.concat([head, half]))
    // The file is being written once a partial file exists somewhere under the blob store.
    const partials = () => {
      const walk = (dir: string): Array<string> =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [e.name]))
      return walk(join(host.config.dataDir, "blobs")).filter((name) => name.endsWith(".part"))
    }
    for (let i = 0; i < 200 && partials().length === 0; i++) await new Promise((r) => setTimeout(r, 25))
    expect(partials().length).toBeGreaterThan(0)
    const deleted = await doomed.sreq("DELETE", `/v1/organizations/${doomed.organization.id}`, { body: { confirm: doomed.organization.slug } })
    expect(deleted.status).toBe(200)
    req.end(Buffer.concat([half, tail]))
    const { status, body } = await answer
    expect([status, JSON.parse(body).error.code]).toEqual([404, "not_found"])
    const folder = join(host.config.dataDir, "blobs", "media", doomed.organization.id)
    expect(existsSync(folder) ? readdirSync(folder) : []).toEqual([])
    expect(partials()).toEqual([])
  })

  it("refuses a part whose filename* is not valid percent-encoded UTF-8 with 422, and keeps serving", async () => {
    const t = await host.tenant()
    const lamp = await product(t, "Encoded")
    for (const filename of ["%E0", "%ED%A0%80", "a%"]) {
      const rawBody = [
        "--b",
        `Content-Disposition: form-data; name="file"; filename*=UTF-8''${filename}`,
        "Content-Type: application/octet-stream",
        "",
        "bytes",
        "--b--",
        ""
      ].join("\r\n")
      const r = await t.req("POST", `/v1/products/${lamp}/media`, { rawBody, headers: { "content-type": "multipart/form-data; boundary=b" } })
      expect([filename, r.status, r.json.error.code]).toEqual([filename, 422, "validation_failed"])
    }
    expect((await host.request("GET", "/healthz")).status).toBe(200)
    expect((await t.req("GET", `/v1/products/${lamp}/media`)).json.data).toEqual([])
  })

  it("answers a refused upload, small or of many megabytes, after reading it, on a connection that stays open", async () => {
    const t = await host.tenant()
    const lamp = await product(t)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const send = async (path: string, parts: ReadonlyArray<readonly [string, string | Blob, string?]>) => {
      const form = new FormData()
      for (const [key, value, filename] of parts) {
        if (typeof value === "string") form.append(key, value)
        else form.append(key, value, filename)
      }
      const encoded = new Response(form)
      const body = Buffer.from(await encoded.arrayBuffer())
      return new Promise<{ status: number; connection: string | undefined; reused: boolean }>((resolve, reject) => {
        const req = request(`${host.baseUrl}${path}`, {
          agent,
          method: "POST",
          headers: { authorization: `Bearer ${t.apiKey}`, "content-type": encoded.headers.get("content-type") ?? "", "content-length": String(body.length) }
        }, (res) => {
          res.resume()
          res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reused: req.reusedSocket }))
        })
        req.on("error", reject)
        req.end(body)
      })
    }
    const file = (bytes: number) => ["file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "a.png"] as const
    const missing = "01900000-0000-7000-8000-00000000ffff"
    const answers = []
    for (let i = 0; i < 5; i++) answers.push(await send(`/v1/products/${missing}/media`, [file(200_000)]))
    // Refused mid-form: the field before the file is unknown.
    answers.push(await send(`/v1/products/${lamp}/media`, [["colour", "red"], file(300_000)]))
    expect(answers.map((a) => [a.status, a.connection])).toEqual([...Array.from({ length: 5 }, () => [404, "keep-alive"]), [422, "keep-alive"]])
    expect(answers.slice(1).every((a) => a.reused)).toBe(true)
    // Answered at once and closed, a client still sending a file of a few megabytes failed
    // with EPIPE instead of reading the 404.
    const large = await send(`/v1/products/${missing}/media`, [file(24 * 1024 * 1024)])
    expect([large.status, large.connection, large.reused]).toEqual([404, "keep-alive", true])
    const ok = await send(`/v1/products/${lamp}/media`, [file(1000)])
    expect(ok.status).toBe(201)
    agent.destroy()
  })

  it("takes a file of exactly 100 MB, and answers 413 for a declared body beyond that and the form, and for a streamed file once it passes 100 MB, keeping nothing and closing the connection", async () => {
    const t = await host.tenant()
    const lamp = await product(t)
    const filesBefore = blobFiles().length
    const send = (headers: Record<string, string>, write: (req: ClientRequest) => void) =>
      new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
        const req = request(`${host.baseUrl}/v1/products/${lamp}/media`, {
          method: "POST",
          headers: { authorization: `Bearer ${t.apiKey}`, ...headers }
        }, (res) => {
          let body = ""
          res.on("data", (c: Buffer) => (body += c.toString()))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }))
        })
        // The server may answer and close before the whole body is sent.
        req.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e)))
        write(req)
      })
    const boundary = "----limit"
    const declared = await send(
      { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(100_000_000 + 1024 * 1024 + 1) },
      (req) => req.write("--")
    )
    expect([declared.status, JSON.parse(declared.body).error.code]).toEqual([413, "FST_ERR_CTP_BODY_TOO_LARGE"])

    const chunk = Buffer.alloc(1024 * 1024)
    const streamFile = (bytes: number) =>
      send({ "content-type": `multipart/form-data; boundary=${boundary}` }, (req) => {
        req.write(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`)
        let sent = 0
        const more = (): void => {
          while (sent < bytes) {
            const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent))
            sent += part.length
            if (!req.write(part)) return void req.once("drain", more)
          }
          req.end(`\r\n--${boundary}--\r\n`)
        }
        more()
      })
    const streamed = await streamFile(100_000_001)
    expect([streamed.status, JSON.parse(streamed.body).error.code]).toEqual([413, "FST_ERR_CTP_BODY_TOO_LARGE"])
    // The parser's own limit is reached only after the blob store has refused the file.
    const pastParser = await streamFile(100_000_000 + 256 * 1024)
    expect([pastParser.status, JSON.parse(pastParser.body).error.code]).toEqual([413, "FST_ERR_CTP_BODY_TOO_LARGE"])
    expect((await fetch(`${host.baseUrl}/healthz`)).status).toBe(200)
    // The rest of a refused body is never read: the connection cannot carry another request.
    expect([declared.connection, streamed.connection, pastParser.connection]).toEqual(["close", "close", "close"])
    expect((await t.req("GET", `/v1/products/${lamp}/media`)).json.data).toEqual([])
    expect(blobFiles().length).toBe(filesBefore)

    const largest = await streamFile(100_000_000)
    expect([largest.status, JSON.parse(largest.body).size]).toEqual([201, 100_000_000])
  }, 60_000)
})
