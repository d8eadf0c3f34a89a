import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Envelope } from "../Errors.js"
import { Changelog } from "../Release.js"

const Health = Schema.Struct({ status: Schema.String, service: Schema.String, version: Schema.String })
const Ready = Schema.Struct({ status: Schema.String })
const NotReady = Envelope.annotations(HttpApiSchema.annotations({ status: 503 }))

/** Probes and release notes: no credentials needed. */
export class HealthApi extends HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(Health))
  .add(HttpApiEndpoint.get("readyz", "/readyz").addSuccess(Ready).addError(NotReady))
  .add(HttpApiEndpoint.get("changelog", "/v1/changelog").addSuccess(Changelog))
{}
