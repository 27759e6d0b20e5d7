import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { serializedOnce } from './serialized-once.ts';

describe('serializedOnce', () => {
  const app = Fastify();
  const send = serializedOnce();
  const objects: Record<string, { name: string; secret?: string }> = {
    a: { name: 'A', secret: 'x' },
    b: { name: 'B' },
  };
  app.get<{ Params: { id: string } }>(
    '/things/:id',
    {
      schema: {
        response: { 200: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      },
    },
    async (request, reply) => send(reply, objects[request.params.id]!),
  );
  afterAll(() => app.close());

  it("answers with the route's serialization (undeclared members dropped) and JSON's content type", async () => {
    const res = await app.inject({ method: 'GET', url: '/things/a' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe('{"name":"A"}');
  });

  it('serializes an object once: later answers are the first string; another object is serialized anew', async () => {
    objects.a!.name = 'changed in place';
    expect((await app.inject({ method: 'GET', url: '/things/a' })).body).toBe('{"name":"A"}');
    objects.a = { name: 'A2' };
    expect((await app.inject({ method: 'GET', url: '/things/a' })).body).toBe('{"name":"A2"}');
    expect((await app.inject({ method: 'GET', url: '/things/b' })).body).toBe('{"name":"B"}');
  });
});
