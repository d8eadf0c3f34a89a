/**
 * Browsers and curl send a part's file name as raw UTF-8 inside `filename="..."`, but the
 * multipart parser only reads a quoted parameter of Latin-1 characters: with `中文.png` it
 * drops the whole Content-Disposition header, so the file arrives as a nameless field. This
 * rewrites such a parameter, in the part headers of the byte stream before the parser, into
 * the `filename*=UTF-8''...` form the parser decodes itself. Everything else passes unchanged,
 * but for the epilogue after the closing delimiter, which is dropped.
 *
 * The delimiter comes from the request's boundary; without one, from the body's first line,
 * which browsers, curl and fetch always begin with.
 */
const CRLF = Buffer.from("\r\n")
const HEADERS_END = Buffer.from("\r\n\r\n")
const DASHES = Buffer.from("--")
/**
 * A larger header block passes as it came, however its bytes arrive, and the parser refuses
 * it (its limit is 16 KB); a smaller one with a long name fits that limit once rewritten.
 */
const MAX_HEADER_BLOCK = 64 * 1024
const MAX_FIRST_LINE = 80
/** Stored names keep 255 characters; a longer path keeps its end, where the name is. */
const MAX_NAME = 1024

type Mode = "first-line" | "preamble" | "headers" | "body" | "passthrough" | "epilogue"

/** Whether a lower-cased content type is `multipart/form-data`, with or without parameters (not `multipart/form-datax`). */
export const isFormDataType = (type: string): boolean => /^multipart\/form-data\s*(;|$)/.test(type)

/** The boundary of a `multipart/form-data` content type, if it names one. */
export const boundaryOf = (contentType: string | undefined): string | undefined => {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "")
  return m === null ? undefined : m[1] ?? m[2]
}

export class Utf8FilenameRewriter {
  private mode: Mode
  private pending: Buffer = Buffer.alloc(0)
  private delimiter: Buffer

  constructor(boundary?: string) {
    this.mode = boundary === undefined ? "first-line" : "preamble"
    this.delimiter = boundary === undefined ? Buffer.alloc(0) : Buffer.concat([CRLF, DASHES, Buffer.from(boundary)])
  }

  /** The bytes to hand to the parser for this chunk; some may be held back for the next. */
  push(chunk: Uint8Array): Buffer {
    if (this.mode === "epilogue") return Buffer.alloc(0)
    if (this.mode === "passthrough" && this.pending.length === 0) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk])
    const out: Array<Buffer> = []
    for (;;) {
      const step = this.step()
      if (step === undefined) break
      out.push(step)
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out)
  }

  /** The bytes still held back, at the end of the body. */
  end(): Buffer {
    const rest = this.mode === "epilogue" ? Buffer.alloc(0) : this.pending
    this.pending = Buffer.alloc(0)
    return rest
  }

  /** Emits the next run of bytes it can decide on, or undefined to wait for more. */
  private step(): Buffer | undefined {
    switch (this.mode) {
      case "first-line": {
        const eol = this.pending.indexOf(CRLF)
        if (eol === -1) return this.pending.length > MAX_FIRST_LINE ? this.giveUp() : undefined
        const line = this.pending.subarray(0, eol)
        if (line.length < 3 || !line.subarray(0, 2).equals(DASHES)) return this.giveUp()
        this.delimiter = Buffer.concat([CRLF, line])
        this.mode = "headers"
        return this.take(eol)
      }
      case "preamble": {
        // The first delimiter may open the body, without the line break before it.
        const opening = this.delimiter.subarray(CRLF.length)
        if (this.pending.length < opening.length) return undefined
        if (this.pending.subarray(0, opening.length).equals(opening)) {
          this.mode = "headers"
          return this.take(opening.length)
        }
        return this.untilDelimiter()
      }
      case "headers": {
        // After the closing delimiter (`--`) comes the epilogue, which means nothing: the
        // parser, which read some epilogues split across writes as a new part, never sees it.
        if (this.pending.length < DASHES.length) return undefined
        if (this.pending.subarray(0, DASHES.length).equals(DASHES)) {
          this.mode = "epilogue"
          this.take(this.pending.length)
          return Buffer.from("--\r\n")
        }
        const end = this.pending.indexOf(HEADERS_END)
        if (end === -1 || end + HEADERS_END.length > MAX_HEADER_BLOCK) {
          return this.pending.length > MAX_HEADER_BLOCK ? this.giveUp() : undefined
        }
        const block = this.take(end + HEADERS_END.length)
        this.mode = "body"
        return rewriteHeaderBlock(block)
      }
      case "body":
        return this.untilDelimiter()
      case "passthrough":
        return this.pending.length > 0 ? this.take(this.pending.length) : undefined
      case "epilogue":
        this.take(this.pending.length)
        return undefined
    }
  }

  /** Bytes up to and through the next delimiter, then the part headers after it. */
  private untilDelimiter(): Buffer | undefined {
    const at = this.pending.indexOf(this.delimiter)
    if (at === -1) {
      // Hold back what could be the start of a delimiter split across chunks.
      const keep = Math.min(this.pending.length, this.delimiter.length - 1)
      return this.pending.length > keep ? this.take(this.pending.length - keep) : undefined
    }
    this.mode = "headers"
    return this.take(at + this.delimiter.length)
  }

  private take(length: number): Buffer {
    const head = this.pending.subarray(0, length)
    this.pending = this.pending.subarray(length)
    return head
  }

  private giveUp(): Buffer {
    this.mode = "passthrough"
    return this.take(this.pending.length)
  }
}

const FILENAME_PARAM = /;\s*filename="((?:[^"\\]|\\.)*)"/i
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** A part's header block in the form the parser reads as the client meant it. */
const rewriteHeaderBlock = (block: Buffer): Buffer => withFileType(withEncodedFilename(withoutLanguageTag(block)))

/** The language tag of an RFC 8187 `filename*` value: `UTF-8'en'...`. */
const FILENAME_LANGUAGE = /(;\s*filename\*=\s*"?[^'";\s]*)'[^'";\s]+'/i

/**
 * RFC 8187 lets a `filename*` value name the language of the file name between its quotes,
 * which the parser reads only when empty (`UTF-8''...`): with one it read no name at all, and
 * the file was kept as `file`. The tag says nothing the stored name keeps, so it is dropped.
 */
const withoutLanguageTag = (block: Buffer): Buffer => {
  const lines = block.toString("latin1").split("\r\n")
  if (!lines.some((line) => /^content-disposition:/i.test(line) && FILENAME_LANGUAGE.test(line))) return block
  return Buffer.from(
    lines.map((line) => (/^content-disposition:/i.test(line) ? line.replace(FILENAME_LANGUAGE, "$1''") : line)).join("\r\n"),
    "latin1"
  )
}

/**
 * A header block with a quoted file name the parser would not read, its name as `filename*`:
 * one holding non-ASCII text, or a control character (a tab, say), which the parser refuses in
 * a quoted parameter while curl and fetch send it as it is.
 */
const withEncodedFilename = (block: Buffer): Buffer => {
  if (!block.some((byte) => byte > 0x7e || (byte < 0x20 && byte !== 0x0d && byte !== 0x0a))) return block
  let text: string
  try {
    text = utf8.decode(block)
  } catch {
    // Not UTF-8: a legacy client's Latin-1, the one other encoding a header block is sent in.
    text = block.toString("latin1")
  }
  const lines = text.split("\r\n").map((line) => {
    if (!/^content-disposition:/i.test(line) || /;\s*filename\*=/i.test(line)) return line
    // Backslashes stay, as the parser keeps them in a Latin-1 name: they separate directories.
    return line.replace(FILENAME_PARAM, (param, name: string) =>
      /[^\x20-\x7e]/.test(name) ? `; filename*=UTF-8''${percentEncode(Array.from(name).slice(-MAX_NAME).join(""))}` : param)
  })
  return Buffer.from(lines.join("\r\n"))
}

/**
 * The parser types a part without `Content-Type` as `application/octet-stream` only when it
 * carries a plain `filename`; one named by `filename*` alone would pass as `text/plain`. Such a
 * part is given the file's default type explicitly.
 */
const withFileType = (block: Buffer): Buffer => {
  const lines = block.toString("latin1").split("\r\n")
  const namedByFilenameStar = lines.some((line) => /^content-disposition:/i.test(line) && /;\s*filename\*=/i.test(line))
  if (!namedByFilenameStar || lines.some((line) => /^content-type:/i.test(line))) return block
  const end = lines.length - 2
  return Buffer.from([...lines.slice(0, end), "Content-Type: application/octet-stream", ...lines.slice(end)].join("\r\n"), "latin1")
}

/** Every byte outside the parser's token characters, so the value reads as one token. */
const percentEncode = (name: string): string =>
  Array.from(Buffer.from(name), (byte) =>
    /[A-Za-z0-9.!#$&+^_`|~-]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("")
