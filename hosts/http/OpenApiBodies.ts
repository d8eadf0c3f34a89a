type Operation = { requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> } }

/**
 * The OpenAPI document with every JSON body open to keys the endpoint does not define: the
 * service ignores them (a record read and sent back whole is accepted), where the generated
 * schemas said `additionalProperties: false`. The closed maps inside a body (`settings`,
 * `config`, `initialAdmin`, attribute value entries...) stay closed, as they refuse such keys.
 */
export const documentOpenBodies = (spec: Record<string, any>): Record<string, any> => {
  for (const methods of Object.values(spec.paths ?? {}) as Array<Record<string, Operation>>) {
    for (const operation of Object.values(methods)) {
      const schema = operation.requestBody?.content?.["application/json"]?.schema
      if (schema !== undefined && schema.additionalProperties === false) delete schema.additionalProperties
    }
  }
  return spec
}
