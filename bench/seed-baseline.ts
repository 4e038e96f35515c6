/**
 * The seed's algorithm (fixtures/seed/session_state.md.txt, "Session State Persistence
 * Patterns"), ported faithfully to TypeScript as the benchmark's baseline:
 *
 * - find_session_state_issue: GET issues?state=open&labels=Type/Automation,
 *   first whose title contains the pattern, on EVERY call;
 * - load_latest_checkpoint: GET the issue's comments since utcnow() − 24 h,
 *   parse_checkpoint_comment on each, filter agent/session, sort by the
 *   `Time:` string descending, take the first;
 * - save_state: find_session_state_issue, then POST the comment.
 *
 * It deliberately keeps the seed's flaws (24 h window, string sort, no author
 * check): they are what the benchmark measures against.
 */
import { formatCheckpoint, pythonUtcIsoformat } from "../src/protocol/index.ts";
import type { JsonObject } from "../src/protocol/index.ts";

export const SESSION_STATE_TITLE_PATTERN = "[Automated] CleverAgents Build Session";

export interface SeedCheckpoint {
  data: unknown;
  version?: string;
  phase?: string;
  session?: string;
  timestamp?: string;
  agent?: string;
}

export interface SeedClientOptions {
  apiUrl: string;
  token: string;
  owner: string;
  repo: string;
}

/** parse_checkpoint_comment, line by line. */
export function seedParseCheckpointComment(body: string): SeedCheckpoint | null {
  if (!body.includes("[CHECKPOINT]")) return null;
  try {
    const jsonStart = body.indexOf("```json\n") + 8;
    const jsonEnd = body.indexOf("\n```", jsonStart);
    if (jsonStart > 7 && jsonEnd > jsonStart) {
      const data: unknown = JSON.parse(body.slice(jsonStart, jsonEnd));
      const checkpoint: SeedCheckpoint = { data };
      for (const line of body.split("\n")) {
        // Python: line.split(":", 1)[1].strip()
        const afterColon = () => line.slice(line.indexOf(":") + 1).trim();
        if (line.startsWith("Version:")) checkpoint.version = afterColon();
        else if (line.startsWith("Phase:")) checkpoint.phase = afterColon();
        else if (line.startsWith("Session:")) checkpoint.session = afterColon();
        else if (line.startsWith("Time:")) checkpoint.timestamp = afterColon();
        else if (line.startsWith("[CHECKPOINT]")) checkpoint.agent = line.slice(line.indexOf("]") + 1).trim();
      }
      return checkpoint;
    }
    return null; // the Python function falls through and returns None
  } catch {
    return null; // "[WARNING] Failed to parse checkpoint"
  }
}

export class SeedClient {
  private readonly headers: Record<string, string>;
  constructor(private readonly o: SeedClientOptions) {
    this.headers = { authorization: `token ${o.token}`, accept: "application/json" };
  }

  private async get<T>(path: string): Promise<T> {
    const res = await fetch(`${this.o.apiUrl}${path}`, { headers: this.headers });
    if (!res.ok) throw new Error(`seed: GET ${path} → ${res.status}`);
    return (await res.json()) as T;
  }

  /** find_session_state_issue (forgejo_list_repo_issues with the MCP's default paging: page 1). */
  async findSessionStateIssue(): Promise<number> {
    const issues = await this.get<{ number: number; title: string }[]>(`/repos/${this.o.owner}/${this.o.repo}/issues?state=open&labels=${encodeURIComponent("Type/Automation")}`);
    for (const issue of issues) if (issue.title.includes(SESSION_STATE_TITLE_PATTERN)) return issue.number;
    throw new Error("No active session state issue found");
  }

  /** load_latest_checkpoint(owner, repo, agent_name, session_id) */
  async loadLatestCheckpoint(agentName?: string, sessionId?: string, now: () => number = Date.now): Promise<SeedCheckpoint | null> {
    const issue = await this.findSessionStateIssue();
    const since = pythonUtcIsoformat(new Date(now() - 24 * 3600_000)); // (utcnow() - timedelta(hours=24)).isoformat() + "Z"
    const comments = await this.get<{ body: string }[]>(`/repos/${this.o.owner}/${this.o.repo}/issues/${issue}/comments?since=${encodeURIComponent(since)}`);
    const checkpoints: SeedCheckpoint[] = [];
    for (const comment of comments) {
      const cp = seedParseCheckpointComment(comment.body);
      if (cp) {
        if (agentName && cp.agent !== agentName) continue;
        if (sessionId && cp.session !== sessionId) continue;
        checkpoints.push(cp);
      }
    }
    if (!checkpoints.length) return null;
    // checkpoints.sort(key=lambda x: x.get('timestamp', ''), reverse=True): stable, by code point
    const key = (c: SeedCheckpoint) => c.timestamp ?? "";
    checkpoints.sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
    return checkpoints[0] ?? null;
  }

  /** save_state: create_checkpoint + find_session_state_issue + save_checkpoint (POST). */
  async saveState(agentName: string, sessionId: string, phase: string, data: JsonObject): Promise<void> {
    const issue = await this.findSessionStateIssue();
    const body = formatCheckpoint({ agent: agentName, session: sessionId, phase, timestamp: pythonUtcIsoformat(new Date()), data });
    const res = await fetch(`${this.o.apiUrl}/repos/${this.o.owner}/${this.o.repo}/issues/${issue}/comments`, {
      method: "POST",
      headers: { ...this.headers, "content-type": "application/json" },
      body: JSON.stringify({ body }),
    });
    if (!res.ok) throw new Error(`seed: POST comment → ${res.status}`);
    await res.arrayBuffer();
  }
}
