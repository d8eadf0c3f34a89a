import { Effect, Layer } from "effect"
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { v7 } from "uuid"
import { Crypto } from "../../core/shared/Crypto.js"

export const layer = Layer.succeed(
  Crypto,
  Crypto.of({
    uuid: Effect.sync(() => v7()),
    randomToken: (bytes) => Effect.sync(() => randomBytes(bytes).toString("base64url")),
    sha256Hex: (text) => Effect.sync(() => createHash("sha256").update(text, "utf8").digest("hex")),
    hmacSha256Hex: (secret, data) => Effect.sync(() => createHmac("sha256", secret).update(data).digest("hex")),
    safeEqual: (a, b) => {
      const x = createHash("sha256").update(a).digest()
      const y = createHash("sha256").update(b).digest()
      return timingSafeEqual(x, y) && a.length === b.length
    }
  })
)
