import type { ServerCommandStatus } from '../../../db/types.js';
import { SecretBoxError, type SecretKey } from '../../../engines/secret-box.js';
import { ProblemError, type ErrorCode } from '../../../http/problem.js';
import {
  RconError,
  rconProtocolOf,
  validateRconCommand,
  type RconOptions,
  type RconResult,
  type RconTarget,
} from '../rcon/index.js';
import { openRconPassword } from './rcon-password.js';
import type { QueuedCommand } from './queue/repo.js';
import type { PluginQueue } from './queue/service.js';
import type { AuditEntry, CommandTarget, ServerCommandsRepo } from './repo.js';

/** The audit keeps the start of each answer; the caller got all of it (up to the output cap). */
export const AUDIT_OUTPUT_CHARS = 2000;

export interface CommandCaller {
  userId: number;
  /** the OAuth app the user sent it through */
  appId: number | null;
}

export interface CommandOutcome {
  command: string;
  output: string;
  truncated: boolean;
  duration_ms: number;
  executed_at: number;
  /** plugin channel: the queued command's id and how it ended */
  id?: string;
  status?: 'ok' | 'error';
}

/** What sending gave: the answer, or (plugin channel) a command still open (or expired) when the wait ended. */
export type SendOutcome = { answered: CommandOutcome } | { queued: QueuedCommand };

/** One person who may operate a server: its owner, or an operator the owner granted (and when). */
export interface ServerOperator {
  user_id: number;
  username: string;
  role: 'owner' | 'operator';
  granted_at: number | null;
}

/** How long `/v1` waits for a plugin's result by default before answering 202. */
export const DEFAULT_PLUGIN_WAIT_MS = 5000;

export interface ServerCommandsDeps {
  repo: ServerCommandsRepo;
  /** HUB_SECRET_KEY; without it no password can be opened and commands answer 503 */
  key: SecretKey | undefined;
  run: (target: RconTarget, command: string, options?: RconOptions) => Promise<RconResult>;
  options: RconOptions;
  now: () => number;
  /** an operator's problem to fix (a stored password this key cannot open), logged without secrets */
  onKeyProblem: (serverId: number, reason: string) => void;
  /** the queue of plugin-channel servers */
  queue: PluginQueue;
}

const FAILURES: Record<RconError['kind'], { status: ServerCommandStatus; code: ErrorCode }> = {
  timeout: { status: 'timeout', code: 'rcon_timeout' },
  unreachable: { status: 'unreachable', code: 'rcon_unreachable' },
  auth_failed: { status: 'auth_failed', code: 'rcon_auth_failed' },
  protocol: { status: 'error', code: 'rcon_protocol_error' },
};

const PROTOCOL_NAMES = { source: 'Source RCON', goldsrc: 'GoldSrc rcon', webrcon: 'WebRCON' } as const;

function failureDetail(target: CommandTarget, where: string, err: RconError, timeoutMs: number): string {
  switch (err.kind) {
    case 'timeout':
      return `Server ${target.id} (${where}) did not answer the command within ${timeoutMs / 1000} s; it may have run anyway.`;
    case 'unreachable':
      return `Server ${target.id} (${where}) could not be reached over its remote console: is it running, and is its RCON port right?`;
    case 'auth_failed':
      return `Server ${target.id} refused the RCON password the hub has for it; the hub operator must set the current one (hub servers set-rcon).`;
    case 'protocol':
      return `Server ${target.id} (${where}) answered outside its remote-console protocol: ${err.message}`;
  }
}

/** What stands for the RCON password wherever a text would have carried it. */
export const PASSWORD_MASK = '********';

/**
 * The text with every occurrence of the RCON password masked, as sent and as WebRCON's URL path
 * carries it. A game server may print it (`rcon_password` answers with the current one) and an
 * error may quote what was sent; the password is the hub operator's, never the caller's to read,
 * nor the audit's to keep.
 */
export function maskPassword(text: string, password: string): string {
  let masked = text;
  for (const form of new Set([password, encodeURIComponent(password)]))
    masked = masked.split(form).join(PASSWORD_MASK);
  return masked;
}

/**
 * Remote server commands: who may send them (the server's owner and the operators it granted),
 * sending one over the server's own protocol, and the audit of every attempt, whatever its result.
 */
export function serverCommandsService(deps: ServerCommandsDeps) {
  const { repo, now } = deps;

  /** The server and whether the caller owns it; 404 for an unknown server, 403 for a stranger. */
  async function access(serverId: number, userId: number, action: string) {
    const target = await repo.findTarget(serverId);
    if (!target) throw new ProblemError('server_not_found', `There is no game server with id ${serverId}.`);
    const owner = target.owner_user_id === userId;
    if (!owner && !(await repo.isOperator(serverId, userId)))
      throw new ProblemError(
        'server_operator_required',
        `Only the owner of server ${serverId} and the operators it granted may ${action}.`,
      );
    return { target, owner };
  }

  async function audit(
    target: CommandTarget,
    caller: CommandCaller,
    command: string,
    status: ServerCommandStatus,
    output: string,
    durationMs: number,
    at: number,
  ): Promise<void> {
    await repo.audit(
      {
        server_id: target.id,
        user_id: caller.userId,
        app_id: caller.appId,
        command,
        status,
        output: output.slice(0, AUDIT_OUTPUT_CHARS),
        duration_ms: durationMs,
        created_at: at,
      },
      target.game,
    );
  }

  /** Over the server's own remote console: every attempt audited, whatever its result. */
  async function sendRcon(
    target: CommandTarget,
    caller: CommandCaller,
    command: string,
  ): Promise<CommandOutcome> {
    const serverId = target.id;
    const protocol = rconProtocolOf(target.game);
    if (protocol === null)
      throw new ProblemError(
        'rcon_not_configured',
        `Server ${serverId} runs ${target.game}, which has no remote console the hub speaks.`,
      );
    if (target.rcon_password === null)
      throw new ProblemError(
        'rcon_not_configured',
        `Server ${serverId} has no RCON password set up; the hub operator sets one with \`hub servers set-rcon ${serverId} --password …\`.`,
      );
    const at = now();
    let password: string;
    try {
      if (!deps.key) throw new SecretBoxError('HUB_SECRET_KEY is not set');
      password = openRconPassword(deps.key, target.rcon_password);
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      deps.onKeyProblem(serverId, err.message);
      await audit(target, caller, command, 'error', 'the hub could not decrypt the RCON password', 0, at);
      throw new ProblemError(
        'service_unavailable',
        `The hub cannot send commands to server ${serverId} right now: its RCON password cannot be decrypted with this instance's HUB_SECRET_KEY. The hub operator has been told.`,
      );
    }
    const port = target.rcon_port ?? target.port;
    const where = `${target.ip}:${port}, ${PROTOCOL_NAMES[protocol]}`;
    try {
      const result = await deps.run({ protocol, host: target.ip, port, password }, command, deps.options);
      const output = maskPassword(result.output, password);
      await audit(target, caller, command, 'ok', output, result.durationMs, at);
      return {
        command,
        output,
        truncated: result.truncated,
        duration_ms: result.durationMs,
        executed_at: at,
      };
    } catch (err) {
      if (!(err instanceof RconError)) throw err;
      const failure = FAILURES[err.kind];
      const detail = maskPassword(
        failureDetail(target, where, err, deps.options.timeoutMs ?? 5000),
        password,
      );
      await audit(target, caller, command, failure.status, detail, Math.max(0, now() - at), at);
      throw new ProblemError(failure.code, detail);
    }
  }

  return {
    async send(
      serverId: number,
      caller: CommandCaller,
      command: string,
      waitMs = DEFAULT_PLUGIN_WAIT_MS,
    ): Promise<SendOutcome> {
      const { target } = await access(serverId, caller.userId, 'send it commands');
      const invalid = validateRconCommand(command);
      if (invalid !== null)
        throw new ProblemError('invalid_body', `body parameter 'command' ${invalid}`, {
          invalidParams: [{ in: 'body', name: 'command', reason: invalid }],
        });
      if (target.command_channel === 'plugin') {
        const row = await deps.queue.issue(serverId, caller, command, waitMs);
        if (row.status !== 'ok' && row.status !== 'error') return { queued: row };
        return {
          answered: {
            command,
            output: row.output ?? '',
            truncated: false,
            duration_ms: row.duration_ms ?? Math.max(0, (row.completed_at ?? row.issued_at) - row.issued_at),
            executed_at: row.issued_at,
            id: String(row.id),
            status: row.status,
          },
        };
      }
      return { answered: await sendRcon(target, caller, command) };
    },

    /**
     * One queued command of a plugin-channel server: any of them for its owner, an operator's own
     * for an operator (as the history shows them); 404 otherwise.
     */
    async queued(serverId: number, userId: number, commandId: number): Promise<QueuedCommand> {
      const { owner } = await access(serverId, userId, 'read its commands');
      const row = await deps.queue.find(serverId, commandId);
      if (!row || (!owner && row.user_id !== userId))
        throw new ProblemError(
          'command_not_found',
          `Server ${serverId} has no command with id ${commandId}.`,
        );
      return row;
    },
    /**
     * Who may operate a server, as its owner and operators read it: the owner first, then the
     * operators it granted by user id. Strangers get 403, as they do for the audit.
     */
    async operators(
      serverId: number,
      userId: number,
      window: { limit: number; offset: number },
    ): Promise<{ rows: ServerOperator[]; total: number }> {
      const { target } = await access(serverId, userId, 'read its operators');
      const owner = target.owner_user_id === null ? undefined : await repo.ownerOf(target.owner_user_id);
      // the owner takes the first place of the first page; the operators' page shifts by one
      const first = owner ? 1 : 0;
      const ownerShown = owner !== undefined && window.offset === 0 && window.limit > 0;
      const page = await repo.operatorPage(serverId, owner?.user_id ?? null, {
        limit: window.limit - (ownerShown ? 1 : 0),
        offset: Math.max(0, window.offset - first),
      });
      const rows: ServerOperator[] = page.rows.map((r) => ({ ...r, role: 'operator' }));
      if (ownerShown) rows.unshift({ ...owner, role: 'owner', granted_at: null });
      return { rows, total: page.total + first };
    },
    /**
     * A server's audit, newest first: every entry for its owner, an operator's own entries for an
     * operator (another operator's commands stay private to the owner).
     */
    async history(
      serverId: number,
      userId: number,
      window: { limit: number; offset: number },
    ): Promise<{ rows: AuditEntry[]; total: number }> {
      const { owner } = await access(serverId, userId, 'read its commands');
      return repo.auditPage(serverId, owner ? undefined : userId, window);
    },
  };
}

export type ServerCommandsService = ReturnType<typeof serverCommandsService>;
