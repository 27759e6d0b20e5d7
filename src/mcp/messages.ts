/**
 * Checks a JSON-RPC request's params before the MCP SDK parses them: the SDK reports a malformed
 * `tools/call` or `resources/read` as -32603 (internal error) with its schema dump; a client sent
 * them, so they are -32602 (invalid params) with a sentence. Pure.
 */
export interface RpcProblem {
  id: string | number | null;
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function invalidParams(message: unknown): RpcProblem | undefined {
  if (!isObject(message) || typeof message.method !== 'string' || !('id' in message)) return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const params = message.params;
  switch (message.method) {
    case 'tools/call':
      if (!isObject(params) || typeof params.name !== 'string' || params.name === '') {
        return { id, message: 'Invalid params: tools/call needs params.name, the tool’s name (tools/list)' };
      }
      if (params.arguments !== undefined && !isObject(params.arguments)) {
        return { id, message: `Invalid params: the arguments of ${params.name} must be an object` };
      }
      return undefined;
    case 'resources/read':
      if (!isObject(params) || typeof params.uri !== 'string') {
        return { id, message: 'Invalid params: resources/read needs params.uri, e.g. atelier://assets/{assetId}' };
      }
      return undefined;
    default:
      return undefined;
  }
}
