import type { FastifyReply } from 'fastify';

/**
 * Answers with a representation's JSON made once per object. For representations that stay the
 * same object while unchanged (made once per row read from the read cache): the route's response
 * serializer runs at the first answer, and later ones send the same string (bench/http). Make one
 * per route: the string is that route's serializer's, for the status the reply has at the time.
 */
export function serializedOnce(): (reply: FastifyReply, body: object) => FastifyReply {
  const bodies = new WeakMap<object, ReturnType<FastifyReply['serialize']>>();
  return (reply, body) => {
    let json = bodies.get(body);
    if (json === undefined) {
      json = reply.serialize(body);
      bodies.set(body, json);
    }
    return reply.type('application/json; charset=utf-8').send(json);
  };
}
