import { FileStream, MultipastaStream } from "multipasta/node"
import { boundaryOf, Utf8FilenameRewriter } from "./Utf8Filenames.js"

/** The parser's own failure for a body that stops before the form's closing boundary. */
const END_NOT_REACHED = { _tag: "EndNotReached" }

/**
 * The multipart parser decodes a part's `filename*` with `decodeURIComponent` inside the
 * stream's write, where a malformed value (`%E0`) throws past every handler and ends the
 * process. Passing the throw to the write callback fails the parse instead, which the upload
 * answers with 422 like any other malformed body. The bytes reach the parser through a
 * `Utf8FilenameRewriter` for the boundary of the request piped in, so that a raw UTF-8 file
 * name keeps its part a file. A field whose bytes are not UTF-8 fails the parse too, naming it.
 */
export const guardMultipartParser = (): void => {
  const proto = MultipastaStream.prototype as unknown as {
    _write: (chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void) => void
    _final: (callback: (error?: Error | null) => void) => void
    emit: (event: string | symbol, ...args: Array<unknown>) => boolean
    push: (chunk: unknown) => boolean
    guarded?: true
  }
  if (proto.guarded) return
  const rewriters = new WeakMap<object, Utf8FilenameRewriter>()
  const rewriterOf = (stream: object) => {
    let rewriter = rewriters.get(stream)
    if (rewriter === undefined) rewriters.set(stream, rewriter = new Utf8FilenameRewriter())
    return rewriter
  }
  const settled = new WeakSet<object>()
  const failed = new WeakSet<object>()
  const emit = proto.emit
  proto.emit = function(this: typeof proto, event, ...args) {
    if (event === "error") {
      settled.add(this)
      failed.add(this)
    }
    // The parser ends its stream after its own error (a part whose Content-Disposition names
    // none), and the reader took that end for the outcome: the error was lost, and the parts
    // after it with it. A stream that failed does not end as well.
    if (event === "end" && failed.has(this)) return false
    if (event === "pipe") {
      const headers = (args[0] as { headers?: Record<string, string | undefined> } | undefined)?.headers
      rewriters.set(this, new Utf8FilenameRewriter(boundaryOf(headers?.["content-type"])))
    }
    return emit.call(this, event, ...args)
  }
  const write = proto._write
  const passOn = (stream: typeof proto, bytes: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void) => {
    if (bytes.length === 0) return callback()
    try {
      write.call(stream, bytes, encoding, callback)
    } catch (error) {
      callback(error instanceof Error ? error : new Error(String(error)))
    }
  }
  proto._write = function(this: typeof proto, chunk, encoding, callback) {
    passOn(this, rewriterOf(this).push(chunk instanceof Uint8Array ? chunk : Buffer.from(String(chunk), encoding)), encoding, callback)
  }
  const final = proto._final
  proto._final = function(this: typeof proto, callback) {
    passOn(this, rewriterOf(this).end(), "binary", (error) => (error ? callback(error) : final.call(this, (error) => {
      // The parser ends its parts only at the closing boundary, and fails only inside a part:
      // a body with no part at all (an empty one) left the upload waiting for parts forever.
      if (!error && !settled.has(this)) emit.call(this, "error", END_NOT_REACHED)
      callback(error)
    })))
  }
  const push = proto.push
  proto.push = function(this: typeof proto, chunk) {
    if (chunk === null) settled.add(this)
    // The parser stops pushing parts after its own error; after this one too.
    else if (failed.has(this)) return false
    const notUtf8 = fieldNotUtf8(chunk)
    if (notUtf8 !== undefined) {
      this.emit("error", notUtf8)
      return false
    }
    return push.call(this, chunk)
  }
  proto.guarded = true
  guardFileEnd()
}

/** The refusal of a form field whose bytes are not the UTF-8 they are read as. */
interface FieldNotUtf8 {
  readonly _tag: "FieldNotUtf8"
  readonly name: string
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The encoding the parser decodes a field with: its `charset`, UTF-8 when it names none it knows. */
const fieldEncoding = (charset: string | undefined): string => {
  try {
    return new TextDecoder(charset ?? "utf-8").encoding
  } catch {
    return "utf-8"
  }
}

/**
 * The parser decodes a field leniently, each byte that is not UTF-8 read as U+FFFD, and the text
 * would be stored so: such a field is refused at its name, as a JSON body that is not UTF-8 is.
 */
const fieldNotUtf8 = (chunk: unknown): FieldNotUtf8 | undefined => {
  const part = chunk as { _tag?: unknown; info?: { name: string; contentTypeParameters: Record<string, string> }; value?: unknown }
  if (part?._tag !== "Field" || part.info === undefined || !(part.value instanceof Uint8Array)) return undefined
  if (fieldEncoding(part.info.contentTypeParameters.charset) !== "utf-8") return undefined
  try {
    utf8.decode(part.value)
    return undefined
  } catch {
    return { _tag: "FieldNotUtf8", name: part.info.name }
  }
}

/**
 * A body that ends inside a file part (no closing boundary) makes the parser emit an error on
 * the part's stream when the request ends, often before the upload reads that stream: with no
 * listener the emit throws and the stream neither fails nor ends, so the upload waited for
 * its bytes forever. The stream now also ends; a reader that comes later sees its end, and the
 * upload fails on the parser's own error, which the form's stream carries.
 */
const guardFileEnd = (): void => {
  const proto = FileStream.prototype as unknown as {
    emit: (event: string | symbol, ...args: Array<unknown>) => boolean
    push: (chunk: unknown) => boolean
    readableEnded: boolean
    listenerCount: (event: string) => number
  }
  const emit = proto.emit
  proto.emit = function(this: typeof proto, event, ...args) {
    if (event !== "error") return emit.call(this, event, ...args)
    if (!this.readableEnded) this.push(null)
    return this.listenerCount("error") === 0 ? false : emit.call(this, event, ...args)
  }
}
