import { createServer } from "node:net"

/** A port of 127.0.0.1 that nothing listens on (it was free a moment ago). */
export const freePort = () =>
  new Promise<number>((done) => {
    const srv = createServer()
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      srv.close(() => done(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
