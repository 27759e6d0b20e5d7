import { type Static, Type } from 'typebox';
import { MAX_PAGE } from '../../http/pagination.ts';
import { StringEnum, Uuid } from '../../http/schemas.ts';
import { MAX_ENDPOINT_URL, MAX_OVERLAP_SECONDS, DEFAULT_OVERLAP_SECONDS } from './webhooks.service.ts';

const MAX_DESCRIPTION = 500;
const MAX_EVENTS = 50;

/** `we_` + 32 hex digits. */
const EndpointId = Type.String({ pattern: '^we_[0-9a-f]{32}$' });
export const EndpointParams = Type.Object({ endpointId: EndpointId });

const TEXT_NOTE = 'Must not contain NUL characters or unpaired surrogates.';
const url = Type.String({
  minLength: 1,
  maxLength: MAX_ENDPOINT_URL,
  description:
    'http(s) URL the events are POSTed to, without user name or password. Its host must resolve to a public address at each delivery.',
});
const events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: MAX_EVENTS,
  description:
    'Event types (`scene_forge.completed`) or families (`video_group.*`) to send; omitted or null: every event.',
});
const description = Type.Union([Type.String({ maxLength: MAX_DESCRIPTION, description: TEXT_NOTE }), Type.Null()]);

export const CreateEndpointBody = Type.Object(
  {
    url,
    events: Type.Optional(Type.Union([events, Type.Null()])),
    description: Type.Optional(description),
  },
  {
    additionalProperties: false,
    title: 'CreateWebhookEndpoint',
    examples: [
      {
        url: 'https://hooks.example.com/atelier',
        events: ['scene_forge.*', 'video_group.completed'],
        description: 'Production receiver',
      },
    ],
  },
);
export type CreateEndpointInput = Static<typeof CreateEndpointBody>;

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(url),
    events: Type.Optional(Type.Union([events, Type.Null()], { description: 'null: every event again' })),
    description: Type.Optional(description),
    enabled: Type.Optional(
      Type.Boolean({
        description: 'false pauses the endpoint: no new deliveries, and pending ones end failed at their next attempt.',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    title: 'UpdateWebhookEndpoint',
    examples: [{ enabled: false }, { events: null, url: 'https://hooks.example.com/atelier/v2' }],
  },
);
export type UpdateEndpointInput = Static<typeof UpdateEndpointBody>;

export const RotateSecretBody = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_SECONDS,
        default: DEFAULT_OVERLAP_SECONDS,
        description: 'Seconds the old secret still signs deliveries too (0: none). At most 7 days; default a day.',
      }),
    ),
  },
  { additionalProperties: false, title: 'RotateWebhookSecret', examples: [{ overlapSeconds: 3600 }] },
);

const dateTime = Type.String({ format: 'date-time' });
const nullableDateTime = Type.Union([dateTime, Type.Null()]);

export const WebhookEndpoint = Type.Object(
  {
    id: EndpointId,
    organizationId: Uuid,
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    events: Type.Array(Type.String(), { description: 'The event filter; [] takes every event' }),
    enabled: Type.Boolean(),
    previousSecretExpiresAt: Type.Union([dateTime, Type.Null()], {
      description: 'While a rotation overlaps: when deliveries stop carrying the old secret’s signature',
    }),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
  { title: 'WebhookEndpoint' },
);

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({
      description:
        'The signing secret (`whsec_…`), shown only in this answer: store it now. Verify the `webhook-signature` header with it (Standard Webhooks).',
    }),
  },
  { title: 'WebhookEndpointWithSecret' },
);

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'The `webhook-id` header: the same on every attempt' }),
    endpointId: EndpointId,
    eventType: Type.String(),
    status: StringEnum(DELIVERY_STATUSES),
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: nullableDateTime,
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: dateTime,
    deliveredAt: nullableDateTime,
  },
  { title: 'WebhookDelivery' },
);

export const TestResult = Type.Object(
  {
    ...WebhookDelivery.properties,
    durationMs: Type.Integer({ minimum: 0, description: 'How long the attempt took' }),
  },
  { title: 'WebhookTestResult' },
);

const page = Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 });
const limit = Type.Integer({ minimum: 1, maximum: 100, default: 20 });

export const ENDPOINT_SORTS = ['createdAt', '-createdAt'] as const;

export const ListEndpointsQuery = Type.Object({
  page,
  limit,
  sort: StringEnum(ENDPOINT_SORTS, { default: '-createdAt' }),
});

export const ListDeliveriesQuery = Type.Object({
  page,
  limit,
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this status' })),
});

const Pagination = Type.Object({
  total: Type.Integer(),
  pages: Type.Integer(),
  currentPage: Type.Integer(),
  limit: Type.Integer(),
});
const Links = Type.Object({
  self: Type.String({ format: 'uri' }),
  next: Type.Optional(Type.String({ format: 'uri', description: 'Absent on the last page' })),
  prev: Type.Optional(Type.String({ format: 'uri', description: 'Absent on the first page' })),
});

export const WebhookEndpointList = Type.Object(
  { data: Type.Array(WebhookEndpoint), pagination: Pagination, links: Links },
  { title: 'WebhookEndpointList' },
);
export const WebhookDeliveryList = Type.Object(
  { data: Type.Array(WebhookDelivery), pagination: Pagination, links: Links },
  { title: 'WebhookDeliveryList' },
);
