import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { listBody, pageWindow, v1Route, type V1RouteSpec } from '../../http/v1-route.js';
import { ownerOfRequest, type WebhookOwner } from './owner.js';
import {
  CreatedWebhookResponse,
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveriesResponse,
  DeliveryParams,
  DeliveryResponse,
  DeliverySchema,
  deliveryBody,
  NoContent,
  ReplayBody,
  ReplayResponse,
  RotatedSecretResponse,
  UpdateWebhookBody,
  webhookBody,
  WebhookParams,
  WebhookResponse,
  WebhookSchema,
  WebhooksQuery,
  WebhooksResponse,
} from './schemas.js';
import type { WebhooksService } from './service.js';

export const WEBHOOKS_TAG = 'Webhooks';

const OWNERSHIP =
  'A webhook belongs to the app of the OAuth token (or to the owner of the API key); another owner\u2019s webhook is `404 webhook_not_found`, as an unknown id is.';

type Spec<
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
  R extends TSchema,
> = Omit<V1RouteSpec<P, Q, B, R>, 'tag' | 'scope' | 'idempotency'>;

const read = <P extends TSchema | undefined, Q extends TSchema | undefined, R extends TSchema>(
  spec: Spec<P, Q, undefined, R>,
) =>
  v1Route({
    ...spec,
    description: `${spec.description} ${OWNERSHIP}`,
    tag: WEBHOOKS_TAG,
    scope: 'webhooks:read',
    errors: [...(spec.errors ?? []), 'unprocessable'],
  });

const write = <P extends TSchema | undefined, B extends TSchema | undefined, R extends TSchema>(
  spec: Spec<P, undefined, B, R>,
) =>
  v1Route({
    ...spec,
    description: `${spec.description} ${OWNERSHIP} Send an \`Idempotency-Key\` to retry safely.`,
    tag: WEBHOOKS_TAG,
    scope: 'webhooks:write',
    idempotency: 'optional',
    errors: [...(spec.errors ?? []), 'unprocessable'],
  });

/** The owner the call acts for; an API key of no account (an operator's) cannot own webhooks. */
function ownerOf(request: FastifyRequest): WebhookOwner {
  const owner = ownerOfRequest(request);
  if (!owner)
    throw new ProblemError(
      'unprocessable',
      'This API key belongs to no account, and webhooks belong to an account or an app: use a key created in the developer portal, or an app token.',
    );
  return owner;
}

/** `/v1/webhooks`: subscriptions, secret rotation, the delivery log, redeliver and replay. */
export function webhooksV1Routes(webhooks: WebhooksService) {
  return (app: App): void => {
    app.addSchema(WebhookSchema);
    app.addSchema(DeliverySchema);

    app.post(
      '/webhooks',
      write({
        operationId: 'v1_webhooks_create',
        summary: 'Register a webhook',
        description:
          'Registers an endpoint that receives the chosen event types (or `["*"]` for all) as signed POSTs (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer holds the signing secret `whsec_…`, shown only this once: a retry with the same `Idempotency-Key` replays the answer with `secret: null` (rotate the secret if the first answer was lost). The URL must be `https` and its host must resolve to public addresses only (`422 invalid_webhook_url` says why not: a private, loopback, link-local or metadata address, `localhost`, or a name that does not resolve; a hub started with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true accepts plain http and private targets, for local tests), every type must be in the catalog (`422 unknown_event_type`). Only events that happen after registration are sent; replay older ones with `POST /v1/webhooks/{id}/replay`.',
        body: CreateWebhookBody,
        response: CreatedWebhookResponse,
        withheldOnReplay: ['secret'],
        status: 201,
        errors: ['invalid_webhook_url', 'unknown_event_type'],
      }),
      async (request, reply) => {
        const { webhook, secret } = await webhooks.create(ownerOf(request), request.body);
        return reply.code(201).send({ data: { webhook: webhookBody(webhook), secret } });
      },
    );

    app.get(
      '/webhooks',
      read({
        operationId: 'v1_webhooks_list',
        summary: 'List webhooks',
        description:
          'The caller\u2019s webhooks, oldest first, paged with `page` and `per_page`. Secrets are never listed.',
        querystring: WebhooksQuery,
        response: WebhooksResponse,
      }),
      async (request) => {
        const { rows, total } = await webhooks.list(ownerOf(request), pageWindow(request.query));
        return listBody(rows.map(webhookBody), total, request.query);
      },
    );

    app.get(
      '/webhooks/:id',
      read({
        operationId: 'v1_webhooks_get',
        summary: 'A webhook',
        description:
          'One webhook: its URL, event types, whether it is enabled and why not. Never its secret.',
        params: WebhookParams,
        response: WebhookResponse,
        errors: ['webhook_not_found'],
      }),
      async (request) => ({ data: webhookBody(await webhooks.get(ownerOf(request), request.params.id)) }),
    );

    app.patch(
      '/webhooks/:id',
      write({
        operationId: 'v1_webhooks_update',
        summary: 'Change a webhook',
        description:
          'Changes the URL, event types, description, or turns the webhook off (`enabled: false`) or on again (`enabled: true`, also after it was disabled for failing or answering 410). Fields left out keep their value. A new URL is checked as at registration (`422 invalid_webhook_url`).',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: WebhookResponse,
        errors: ['webhook_not_found', 'invalid_webhook_url', 'unknown_event_type'],
      }),
      async (request) => ({
        data: webhookBody(await webhooks.update(ownerOf(request), request.params.id, request.body)),
      }),
    );

    app.delete(
      '/webhooks/:id',
      write({
        operationId: 'v1_webhooks_delete',
        summary: 'Delete a webhook',
        description: 'Deletes the webhook with its secrets and delivery log; nothing more is sent to it.',
        params: WebhookParams,
        response: NoContent,
        status: 204,
        errors: ['webhook_not_found'],
      }),
      async (request, reply) => {
        await webhooks.delete(ownerOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      write({
        operationId: 'v1_webhooks_secret_rotate',
        summary: 'Rotate a webhook\u2019s secret',
        description:
          'Issues a new signing secret, shown only in this answer (a replay with the same `Idempotency-Key` carries `secret: null`). For 24 hours every delivery carries two signatures (the new and the previous secret) in `webhook-signature`, so a receiver can switch without missing one; then only the new secret signs.',
        params: WebhookParams,
        response: RotatedSecretResponse,
        withheldOnReplay: ['secret'],
        errors: ['webhook_not_found'],
      }),
      async (request) => {
        const rotated = await webhooks.rotateSecret(ownerOf(request), request.params.id);
        return {
          data: {
            secret: rotated.secret,
            previous_expires_at: new Date(rotated.previousExpiresAt).toISOString(),
          },
        };
      },
    );

    app.get(
      '/webhooks/:id/deliveries',
      read({
        operationId: 'v1_webhooks_deliveries_list',
        summary: 'A webhook\u2019s delivery log',
        description:
          'Deliveries of the last 30 days, newest first, each with its status, tries, the receiver\u2019s status code, latency and the first 1 KiB of its answer, and its newest tries. Filter with `status`; paged with `page` and `per_page`.',
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: DeliveriesResponse,
        errors: ['webhook_not_found'],
      }),
      async (request) => {
        const { status } = request.query;
        const { rows, total } = await webhooks.deliveries(
          ownerOf(request),
          request.params.id,
          { status },
          pageWindow(request.query),
        );
        return listBody(rows.map(deliveryBody), total, request.query);
      },
    );

    app.post(
      '/webhooks/:id/deliveries/:delivery_id/redeliver',
      write({
        operationId: 'v1_webhooks_deliveries_redeliver',
        summary: 'Send a delivery again',
        description:
          'Queues the delivery to be sent again now, with a fresh run of retries, whatever its state (the same event, the same `webhook-id`, so a receiver that already handled it can tell). `202`: the worker sends it shortly.',
        params: DeliveryParams,
        response: DeliveryResponse,
        status: 202,
        errors: ['webhook_not_found', 'delivery_not_found'],
      }),
      async (request, reply) => {
        const { id, delivery_id } = request.params;
        const row = await webhooks.redeliver(ownerOf(request), id, delivery_id);
        return reply.code(202).send({ data: deliveryBody(row) });
      },
    );

    app.post(
      '/webhooks/:id/replay',
      write({
        operationId: 'v1_webhooks_replay',
        summary: 'Replay events since a time',
        description:
          'Queues every event since `since` (at most 30 days back) that the webhook subscribes to and may receive, as new deliveries or as deliveries sent again. At most 10,000 per call: when `complete` is false, call again with `since` set to `next_since`.',
        params: WebhookParams,
        body: ReplayBody,
        response: ReplayResponse,
        status: 202,
        errors: ['webhook_not_found'],
      }),
      async (request, reply) => {
        const since = Date.parse(request.body.since);
        const result = await webhooks.replay(ownerOf(request), request.params.id, since);
        return reply.code(202).send({ data: result });
      },
    );
  };
}
