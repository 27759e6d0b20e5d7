import type { AdminDeps } from '../admin-deps.ts';
import { AccessError } from '../modules/access/access.errors.ts';
import type { WebhookDelivery } from '../modules/webhooks/webhooks.service.ts';
import { parse, parseDuration, parseExpiry, positional, UsageError } from './args.ts';

type Out = (line: string) => void;

export const ADMIN_USAGE = `atelier admin <command>
  bootstrap [--org NAME] [--plan SLUG] [--json]     organization + owner + API key
  org create --name NAME [--plan SLUG] [--json]
  org list [--json]
  org set-plan <orgId> <planSlug> [--json]
  org set-overrides <orgId> <json> [--json]        e.g. '{"pools":{"image_generations":500}}'
  org set-content-credentials <orgId> on|off [--json]   sign generated files (C2PA); on by default
  user add --org ORG_ID --name NAME [--email E] [--role owner|admin|member|viewer] [--no-invite] [--json]
                                                    with --email, prints a one-time console invite link (72 h)
  user invite <userId> [--json]                    a new one-time console invite link (older ones stop working)
  user set-password <userId>                       reads the console password from stdin (e.g. local setups)
  user list [--org ORG_ID] [--json]
  user set-role <userId> <role> [--json]
  user remove <userId>
  operator add|remove <userId> [--json]            grant or withdraw instance-wide reads (all_organizations);
                                                    never on a key you hand to an agent
  operator list [--json]
  key create --user USER_ID [--name NAME] [--expires 30d|ISO] [--json]
  key list [--org ORG_ID] [--user USER_ID] [--json]
  key revoke <keyId> [--json]
  key regenerate <keyId> [--json]
  webhook add --org ORG_ID --url https://… [--events a,b] [--description TEXT] [--json]
                                                    prints the signing secret (whsec_…) once
  webhook list --org ORG_ID [--json]               endpoints with their latest deliveries
  webhook remove <endpointId> [--json]
  webhook enable|disable <endpointId> [--json]
  webhook test <endpointId> [--json]               sends a webhook.test event now; exit 1 if it fails
  webhook rotate <endpointId> [--overlap 24h] [--json]
                                                    a new secret (printed once); deliveries are signed
                                                    with the old one too until the overlap ends (0 to 7d)
  webhook deliveries <endpointId> [--limit N] [--json]`;

/** The first line of standard input (a password piped in, or typed at a prompt). */
async function readLineFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password (at least 12 characters): ');
  let data = '';
  for await (const chunk of process.stdin) {
    data += String(chunk);
    if (data.includes('\n')) break;
  }
  return data.split(/\r?\n/)[0] ?? '';
}

/** Runs one `atelier admin …` command against the shared services; prints to `out`. */
export async function runAdmin(
  argv: string[],
  deps: AdminDeps,
  out: Out,
  readLine: () => Promise<string> = readLineFromStdin,
): Promise<void> {
  const [group, action, ...rest] = argv;
  const { access } = deps;
  const print = (json: boolean | undefined, value: unknown, human: string) => out(json ? JSON.stringify(value) : human);
  if (group === 'bootstrap') {
    const { values } = parse(
      [action, ...rest].filter((x): x is string => x !== undefined),
      {
        org: { type: 'string' },
        plan: { type: 'string' },
        json: { type: 'boolean' },
      },
    );
    const r = await access.bootstrap({
      ...(values.org ? { orgName: values.org } : {}),
      ...(values.plan ? { planSlug: values.plan } : {}),
    });
    print(
      values.json,
      r,
      [
        `Organization: ${r.organizationId}`,
        `User (owner): ${r.userId}`,
        `API key (shown once, store it now): ${r.apiKey}`,
        '',
        `Try it: curl -H "Authorization: Bearer ${r.apiKey}" ${deps.config.publicUrl}/v1/brands`,
      ].join('\n'),
    );
    return;
  }
  if (group === 'org') {
    const { values, positionals } = parse(rest, {
      name: { type: 'string' },
      plan: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (action === 'create') {
      if (!values.name) throw new UsageError('org create needs --name');
      const org = await access.createOrganization({ name: values.name, planSlug: values.plan ?? 'free' });
      return print(values.json, org, `Organization ${org.id} "${org.name}" on plan ${org.planSlug}`);
    }
    if (action === 'list') {
      const orgs = await access.listOrganizations();
      return print(
        values.json,
        orgs,
        orgs.map((o) => `${o.id}  ${o.planSlug.padEnd(10)}  ${o.name}`).join('\n') || '(none)',
      );
    }
    if (action === 'set-plan') {
      const org = await access.setPlan(positional(positionals, 0, 'orgId'), positional(positionals, 1, 'planSlug'));
      return print(values.json, org, `Organization ${org.id} is now on plan ${org.planSlug}`);
    }
    if (action === 'set-content-credentials') {
      const value = positional(positionals, 1, 'on|off');
      if (value !== 'on' && value !== 'off') throw new UsageError('set-content-credentials takes on or off');
      const org = await access.setContentCredentials(positional(positionals, 0, 'orgId'), value === 'on');
      return print(
        values.json,
        org,
        `Organization ${org.id}: Content Credentials ${org.contentCredentials ? 'on' : 'off'} for generated files`,
      );
    }
    if (action === 'set-overrides') {
      const raw = positional(positionals, 1, 'json');
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new UsageError('overrides must be a JSON object');
      }
      const org = await access.setOverrides(positional(positionals, 0, 'orgId'), parsed);
      return print(values.json, org, `Organization ${org.id} overrides: ${JSON.stringify(org.overrides)}`);
    }
  }
  if (group === 'user') {
    const { values, positionals } = parse(rest, {
      org: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      invite: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (action === 'add') {
      if (!values.org || !values.name) throw new UsageError('user add needs --org and --name');
      const user = await access.addUser({
        organizationId: values.org,
        name: values.name,
        email: values.email ?? null,
        role: values.role ?? 'member',
      });
      const added = `User ${user.id} "${user.name}" (${user.role}) in ${user.organizationId}`;
      if (!user.email || values.invite === false) {
        return print(values.json, user, user.email ? added : `${added}\n(no --email: no console invite)`);
      }
      let invite: Awaited<ReturnType<AdminDeps['console']['createInvite']>>;
      try {
        invite = await deps.console.createInvite(user.id);
      } catch (err) {
        // The user exists now: say why there is no link rather than failing the command.
        if (!(err instanceof AccessError)) throw err;
        return print(values.json, { ...user, inviteError: err.message }, `${added}\nNo console invite: ${err.message}`);
      }
      return print(
        values.json,
        { ...user, inviteUrl: invite.url, inviteExpiresAt: invite.expiresAt },
        `${added}\nConsole invite (one-time, until ${invite.expiresAt}): ${invite.url}`,
      );
    }
    if (action === 'invite') {
      const invite = await deps.console.createInvite(positional(positionals, 0, 'userId'));
      return print(
        values.json,
        { inviteUrl: invite.url, inviteExpiresAt: invite.expiresAt },
        `Console invite (one-time, until ${invite.expiresAt}): ${invite.url}`,
      );
    }
    if (action === 'set-password') {
      const id = positional(positionals, 0, 'userId');
      const password = await readLine();
      await deps.console.setPassword(id, password);
      return print(values.json, { userId: id }, `Password set for user ${id}; their console sessions were ended`);
    }
    if (action === 'list') {
      const users = await access.listUsers(values.org);
      return print(
        values.json,
        users,
        users.map((u) => `${u.id}  ${u.role.padEnd(7)}  ${u.organizationId}  ${u.name}`).join('\n') || '(none)',
      );
    }
    if (action === 'set-role') {
      const user = await access.setRole(positional(positionals, 0, 'userId'), positional(positionals, 1, 'role'));
      return print(values.json, user, `User ${user.id} is now ${user.role}${user.platformAdmin ? ' (operator)' : ''}`);
    }
    if (action === 'remove') {
      const id = positional(positionals, 0, 'userId');
      await access.removeUser(id);
      return print(values.json, { removed: id }, `User ${id} removed; their keys no longer work`);
    }
  }
  if (group === 'operator') {
    const { values, positionals } = parse(rest, { json: { type: 'boolean' } });
    if (action === 'add' || action === 'remove') {
      const user = await access.setOperator(positional(positionals, 0, 'userId'), action === 'add');
      return print(
        values.json,
        user,
        action === 'add'
          ? `User ${user.id} is now an operator: their keys may read every organization (all_organizations)`
          : `User ${user.id} is no longer an operator`,
      );
    }
    if (action === 'list') {
      const operators = (await access.listUsers()).filter((u) => u.platformAdmin);
      return print(
        values.json,
        operators,
        operators.map((u) => `${u.id}  ${u.organizationId}  ${u.name}`).join('\n') || '(none)',
      );
    }
  }
  if (group === 'key') {
    const { values, positionals } = parse(rest, {
      user: { type: 'string' },
      org: { type: 'string' },
      name: { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (action === 'create') {
      if (!values.user) throw new UsageError('key create needs --user');
      const { key, token } = await access.createKey({
        userId: values.user,
        name: values.name ?? 'default',
        expiresAt: values.expires ? parseExpiry(values.expires, deps.clock()) : null,
      });
      return print(values.json, { ...key, apiKey: token }, `API key ${key.keyId} (shown once): ${token}`);
    }
    if (action === 'list') {
      const keys = await access.listKeys({
        ...(values.org ? { orgId: values.org } : {}),
        ...(values.user ? { userId: values.user } : {}),
      });
      return print(
        values.json,
        keys,
        keys
          .map(
            (k) =>
              `${k.keyId}  ${k.env.padEnd(7)}  ${(k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt <= deps.clock().toISOString() ? 'expired' : 'active').padEnd(7)}  ${k.name}  user=${k.userId}  lastUsed=${k.lastUsedAt ?? 'never'}`,
          )
          .join('\n') || '(none)',
      );
    }
    if (action === 'revoke') {
      const key = await access.revokeKey(positional(positionals, 0, 'keyId'));
      return print(values.json, key, `API key ${key.keyId} revoked`);
    }
    if (action === 'regenerate') {
      const { key, token } = await access.regenerateKey(positional(positionals, 0, 'keyId'));
      return print(values.json, { ...key, apiKey: token }, `API key ${key.keyId} regenerated (shown once): ${token}`);
    }
  }
  if (group === 'webhook') return runWebhook(action, rest, deps, print);
  throw new UsageError(
    `unknown admin command: ${[group, action].filter(Boolean).join(' ') || '(none)'}\n\n${ADMIN_USAGE}`,
  );
}

type Print = (json: boolean | undefined, value: unknown, human: string) => void;

const deliveryLine = (d: WebhookDelivery) =>
  `${d.createdAt}  ${d.status.padEnd(9)}  ${d.eventType}  attempts=${d.attempts}${
    d.lastStatusCode !== null ? `  http=${d.lastStatusCode}` : ''
  }${d.status === 'pending' && d.nextAttemptAt ? `  next=${d.nextAttemptAt}` : ''}${d.lastError ? `  error="${d.lastError}"` : ''}  ${d.id}`;

/** `atelier admin webhook …`: the operator's signed webhook endpoints (src/modules/webhooks). */
async function runWebhook(action: string | undefined, rest: string[], deps: AdminDeps, print: Print): Promise<void> {
  const { webhooks } = deps;
  const { values, positionals } = parse(rest, {
    org: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'string' },
    description: { type: 'string' },
    limit: { type: 'string' },
    overlap: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (action === 'add') {
    if (!values.org || !values.url) throw new UsageError('webhook add needs --org and --url');
    const { endpoint, secret } = await webhooks.addEndpoint({
      orgId: values.org,
      url: values.url,
      ...(values.events !== undefined ? { events: values.events.split(',') } : {}),
      description: values.description ?? null,
    });
    return print(
      values.json,
      { ...endpoint, secret },
      [
        `Webhook endpoint ${endpoint.id} → ${endpoint.url} (${endpoint.events.length ? endpoint.events.join(', ') : 'every event'})`,
        `Signing secret (shown once, store it now): ${secret}`,
      ].join('\n'),
    );
  }
  if (action === 'list') {
    if (!values.org) throw new UsageError('webhook list needs --org');
    const list = await webhooks.listEndpoints(values.org);
    return print(
      values.json,
      list,
      list
        .map((e) =>
          [
            `${e.id}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}  events=${e.events.length ? e.events.join(',') : '*'}${e.description ? `  "${e.description}"` : ''}`,
            ...(e.recentDeliveries.length
              ? e.recentDeliveries.map((d) => `    ${deliveryLine(d)}`)
              : ['    (no deliveries yet)']),
          ].join('\n'),
        )
        .join('\n') || '(none)',
    );
  }
  if (action === 'remove') {
    const id = positional(positionals, 0, 'endpointId');
    await webhooks.removeEndpoint(id);
    return print(values.json, { removed: id }, `Webhook endpoint ${id} removed (with its delivery log)`);
  }
  if (action === 'enable' || action === 'disable') {
    const e = await webhooks.setEnabled(positional(positionals, 0, 'endpointId'), action === 'enable');
    return print(values.json, e, `Webhook endpoint ${e.id} ${e.enabled ? 'enabled' : 'disabled'}`);
  }
  if (action === 'deliveries') {
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit: expected 1..1000');
    const id = positional(positionals, 0, 'endpointId');
    await webhooks.getEndpoint(id);
    const list = await webhooks.deliveries(id, { limit });
    return print(values.json, list, list.map(deliveryLine).join('\n') || '(none)');
  }
  if (action === 'test') {
    const { delivery, outcome } = await webhooks.sendTest(positional(positionals, 0, 'endpointId'));
    print(
      values.json,
      { ...delivery, ms: outcome.ms },
      outcome.ok
        ? `Test event ${delivery.id} delivered: HTTP ${outcome.statusCode} in ${outcome.ms} ms`
        : `Test event ${delivery.id} failed: ${outcome.error}`,
    );
    if (!outcome.ok) throw new AccessError('the test delivery failed');
    return;
  }
  if (action === 'rotate') {
    const overlap = values.overlap === undefined ? undefined : parseDuration(values.overlap, '--overlap');
    const { endpoint, secret } = await webhooks.rotateSecret(positional(positionals, 0, 'endpointId'), overlap);
    return print(
      values.json,
      { ...endpoint, secret },
      [
        `Webhook endpoint ${endpoint.id}: new signing secret (shown once, store it now): ${secret}`,
        endpoint.previousSecretExpiresAt
          ? `Deliveries carry the old secret's signature too until ${endpoint.previousSecretExpiresAt}`
          : 'The old secret is no longer used',
      ].join('\n'),
    );
  }
  throw new UsageError(`unknown admin command: ${['webhook', action].filter(Boolean).join(' ')}\n\n${ADMIN_USAGE}`);
}
