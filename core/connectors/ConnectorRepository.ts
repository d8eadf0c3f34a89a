import { Context, type Effect, type Option } from "effect"
import type { ConnectorRecord, Delivery } from "./Connector.js"

/** Connectors and their delivery logs. */
export class ConnectorRepository extends Context.Tag("catalog/ConnectorRepository")<ConnectorRepository, {
  readonly insert: (connector: ConnectorRecord) => Effect.Effect<void>
  /** One organization's connectors, oldest first. */
  readonly list: (organizationId: string) => Effect.Effect<ReadonlyArray<ConnectorRecord>>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<ConnectorRecord>>
  readonly update: (
    organizationId: string,
    id: string,
    changes: { readonly name?: string; readonly events?: ReadonlyArray<string>; readonly updatedAt: string }
  ) => Effect.Effect<Option.Option<ConnectorRecord>>
  /** Deletes the connector, its delivery log and its queued deliveries; false when there was none. */
  readonly delete: (organizationId: string, id: string) => Effect.Effect<boolean>
  /**
   * Logs an attempt and drops all but the connector's most recent `keep`. Does nothing when
   * the connector was deleted meanwhile.
   */
  readonly recordDelivery: (
    organizationId: string,
    connectorId: string,
    delivery: Delivery,
    keep: number
  ) => Effect.Effect<void>
  /** A connector's attempts, newest first, and whether more follow. */
  readonly deliveries: (
    organizationId: string,
    connectorId: string,
    limit: number,
    offset: number
  ) => Effect.Effect<{ readonly deliveries: ReadonlyArray<Delivery>; readonly hasMore: boolean }>
}>() {}
