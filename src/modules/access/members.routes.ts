import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from './access.auth.ts';
import { conflict, errorResponses, fieldError, forbidden, notFound } from '../../http/errors.ts';
import { AccessError } from './access.errors.ts';
import { ROLES, type Role } from './access.roles.ts';
import type { AccessService, Principal, User } from './access.service.ts';
import type { ConsoleService } from '../console/console.service.ts';

const RoleSchema = Type.Enum(ROLES);
const Member = Type.Object(
  {
    userId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    role: RoleSchema,
    status: Type.Union([Type.Literal('active'), Type.Literal('invited')], {
      description: 'active: has set a password; invited: has not yet used an invite link',
    }),
    isYou: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Member' },
);
const Invite = Type.Object({
  inviteUrl: Type.String({ description: 'A one-time link where the person sets a password; shown once' }),
  inviteExpiresAt: Type.String({ format: 'date-time' }),
});
const MemberParams = Type.Object({ userId: Type.String({ format: 'uuid' }) });
const InviteBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ minLength: 3, maxLength: 320, format: 'email' }),
    role: RoleSchema,
  },
  { additionalProperties: false },
);
const RoleBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });

export interface MembersRoutesDeps {
  access: AccessService;
  /** Passwords and invite links of the members. */
  console: ConsoleService;
}

/**
 * The organization's members for console admins (console only, hidden from the OpenAPI document;
 * `members:manage`: admins and owners): list, invite (a one-time link, shown once), change a role,
 * send a new invite link, remove. Only owners grant, change or remove the owner role; nobody
 * changes or removes themselves (so an organization always keeps an owner). A user of another
 * organization is a 404.
 */
export function membersRoutes(deps: MembersRoutesDeps): FastifyPluginAsync {
  const { access } = deps;
  const tags = ['console'];
  const config = { surface: 'console' as const, permission: 'members:manage' as const };

  async function present(p: Principal, users: User[]) {
    const active = await deps.console.withPassword(users.map((u) => u.id));
    return users.map((u) => ({
      userId: u.id,
      name: u.name,
      email: u.email,
      role: u.role,
      status: active.has(u.id) ? ('active' as const) : ('invited' as const),
      isYou: u.id === p.userId,
      createdAt: u.createdAt,
    }));
  }
  async function memberOf(p: Principal, userId: string) {
    const user = (await access.listUsers(p.org.id)).find((u) => u.id === userId);
    if (!user) throw notFound(`Member ${userId} not found`, 'MEMBER_NOT_FOUND');
    return user;
  }
  const ownersOnly = (what: string) => forbidden(`Only an owner can ${what}`, 'FORBIDDEN', { requiredRole: 'owner' });
  function mayTouch(p: Principal, target: User, action: string) {
    if (target.id === p.userId) throw conflict(`You cannot ${action} yourself`, 'OWN_MEMBERSHIP');
    if (target.role === 'owner' && p.role !== 'owner') throw ownersOnly(`${action} an owner`);
  }
  async function inviteFor(userId: string) {
    try {
      const { url, expiresAt } = await deps.console.createInvite(userId);
      return { inviteUrl: url, inviteExpiresAt: expiresAt };
    } catch (err) {
      if (err instanceof AccessError) throw conflict(err.message, 'EMAIL_TAKEN');
      throw err;
    }
  }

  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/members',
      {
        config,
        schema: {
          hide: true,
          summary: 'List the organization’s members (console only, admins)',
          tags,
          response: { 200: Type.Object({ data: Type.Array(Member) }), ...errorResponses(401, 403, 429) },
        },
      },
      async (request) => {
        const p = principalOf(request);
        return { data: await present(p, await access.listUsers(p.org.id)) };
      },
    );

    app.post(
      '/members',
      {
        config: { ...config, idempotency: false },
        schema: {
          hide: true,
          summary: 'Invite a person into the organization (console only, admins); the link is shown once',
          tags,
          body: InviteBody,
          response: {
            201: Type.Object({ member: Member, ...Invite.properties }),
            ...errorResponses(400, 401, 403, 409, 429),
          },
        },
      },
      async (request, reply) => {
        const p = principalOf(request);
        const { name, role } = request.body;
        const email = request.body.email.trim();
        if (!name.trim()) throw fieldError('body.name', 'must not be blank');
        if (role === 'owner' && p.role !== 'owner') throw ownersOnly('make someone an owner');
        const members = await access.listUsers(p.org.id);
        if (members.some((u) => u.email?.toLowerCase() === email.toLowerCase())) {
          throw conflict(`${email} is already a member of this organization`, 'MEMBER_EXISTS');
        }
        const user = await access.addUser({ organizationId: p.org.id, name, email, role });
        let invite: { inviteUrl: string; inviteExpiresAt: string };
        try {
          invite = await inviteFor(user.id);
        } catch (err) {
          await access.removeUser(user.id);
          throw err;
        }
        const [member] = await present(p, [user]);
        return reply.code(201).send({ member: member!, ...invite });
      },
    );

    app.patch(
      '/members/:userId',
      {
        config,
        schema: {
          hide: true,
          summary: 'Change a member’s role (console only, admins; the owner role only by owners)',
          tags,
          params: MemberParams,
          body: RoleBody,
          response: { 200: Member, ...errorResponses(400, 401, 403, 404, 409, 429) },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const target = await memberOf(p, request.params.userId);
        mayTouch(p, target, 'change the role of');
        const role: Role = request.body.role;
        if (role === 'owner' && p.role !== 'owner') throw ownersOnly('make someone an owner');
        const [member] = await present(p, [await access.setRole(target.id, role)]);
        return member!;
      },
    );

    app.post(
      '/members/:userId/invite',
      {
        config: { ...config, idempotency: false },
        schema: {
          hide: true,
          summary: 'A new invite link for a member who has not signed in yet (console only, admins)',
          tags,
          params: MemberParams,
          response: { 200: Invite, ...errorResponses(401, 403, 404, 409, 429) },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const target = await memberOf(p, request.params.userId);
        mayTouch(p, target, 'invite');
        if ((await deps.console.withPassword([target.id])).has(target.id)) {
          throw conflict(`${target.name} has already joined`, 'ALREADY_JOINED');
        }
        return inviteFor(target.id);
      },
    );

    app.delete(
      '/members/:userId',
      {
        config,
        schema: {
          hide: true,
          summary: 'Remove a member (console only, admins); their sessions and keys stop working',
          tags,
          params: MemberParams,
          response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(401, 403, 404, 409, 429) },
        },
      },
      async (request, reply) => {
        const p = principalOf(request);
        const target = await memberOf(p, request.params.userId);
        mayTouch(p, target, 'remove');
        await access.removeUser(target.id);
        return reply.code(204).send(null);
      },
    );
  };
}
