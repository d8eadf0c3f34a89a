import { MultipastaStream } from "multipasta/node"

/**
 * The multipart parser decodes a part's `filename*` with `decodeURIComponent` inside the
 * stream's write, where a malformed value (`%E0`) throws past every handler and ends the
 * process. Passing the throw to the write callback fails the parse instead, which the upload
 * answers with 422 like any other malformed body.
 */
export const guardMultipartParser = (): void => {
  const proto = MultipastaStream.prototype as unknown as {
    _write: (chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void) => void
    guarded?: true
  }
  if (proto.guarded) return
  const write = proto._write
  proto._write = function(this: unknown, chunk, encoding, callback) {
    try {
      write.call(this, chunk, encoding, callback)
    } catch (error) {
      callback(error instanceof Error ? error : new Error(String(error)))
    }
  }
  proto.guarded = true
}
