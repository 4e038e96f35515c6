/**
 * Team routes a bot reads to learn who may write issues when the permission API says "read" (issue 18
 * item 6): the repository's teams with their unit modes, and one team's membership check. Forgejo v13.0.5.
 */
import { loadRepo, paramInt, requireToken } from "../access.ts";
import { apiError, notFound } from "../api-error.ts";
import type { RouteHandler } from "../context.ts";
import { toApiUser } from "../convert.ts";
import type { AccessMode, TeamRow } from "../types.ts";

/** unit.Units' NameKey per unit type (models/unit/unit.go:299-380), from the short names the store keeps. */
const UNIT_NAME_KEYS: Readonly<Record<string, string>> = {
  code: "repo.code",
  issues: "repo.issues",
  ext_issues: "repo.ext_issues",
  pulls: "repo.pulls",
  releases: "repo.releases",
  wiki: "repo.wiki",
  ext_wiki: "repo.ext_wiki",
  projects: "repo.projects",
  packages: "repo.packages",
  actions: "repo.actions",
};

/** OwnerTeamName (models/organization/team.go): membership of this team is organisation ownership (org_user.go:45-56). */
const OWNER_TEAM_NAME = "Owners";

/**
 * convert.ToTeams without the organisation (services/convert/convert.go:354-389): `units` is
 * Team.GetUnitNames (models/organization/team.go:112-121) and `units_map` Team.GetUnitsMap (:124-136):
 * an admin (or owner) team gets every unit at its AccessMode, any other team its own units' modes.
 */
function toApiTeam(t: TeamRow): Record<string, unknown> {
  const units = JSON.parse(t.units) as Record<string, AccessMode>;
  const admin = t.access_mode === "admin" || t.access_mode === "owner";
  const names = admin ? Object.values(UNIT_NAME_KEYS) : Object.keys(units).map((u) => UNIT_NAME_KEYS[u] ?? `repo.${u}`);
  const map: Record<string, string> = {};
  if (admin) for (const key of Object.values(UNIT_NAME_KEYS)) map[key] = t.access_mode;
  else for (const [u, m] of Object.entries(units)) map[UNIT_NAME_KEYS[u] ?? `repo.${u}`] = m;
  // Go's encoding/json writes a map's keys sorted.
  const sorted = Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    id: t.id,
    name: t.name,
    description: "",
    organization: null,
    includes_all_repositories: false,
    permission: t.access_mode,
    units: names,
    units_map: sorted,
    can_create_org_repo: false,
  };
}

/**
 * GET /repos/{owner}/{repo}/teams (routers/api/v1/api.go:1180-1185, reqToken + reqAnyRepoReader;
 * routers/api/v1/repo/teams.go:18-59): 405 when the owner is no organisation (:41-44), else every team
 * of the organisation that holds the repository, unpaged, the Owners team first, then by name
 * (models/organization/team_list.go:101-108).
 */
export const listRepoTeams: RouteHandler = (ctx) => {
  const { repo } = loadRepo(ctx);
  requireToken(ctx);
  if (!ctx.forge.store.isOrg(repo.owner_id)) throw apiError(ctx.forge.baseUrl, 405, "repo is not owned by an organization");
  const teams = ctx.forge.store.repoTeams(repo.id);
  const key = (t: TeamRow) => (t.name.toLowerCase() === OWNER_TEAM_NAME.toLowerCase() ? "" : t.name);
  teams.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return { status: 200, json: teams.map(toApiTeam) };
};

/**
 * GET /teams/{id}/members/{username} (swagger; Forgejo routes it as /teams/{teamid}/…, routers/api/v1/api.go:1627-1648). orgAssignment: an unknown
 * team is a 404 (api.go:672-680). reqTeamMembership (api.go:551-586): the doer must be a site admin, an
 * owner of the team's organisation, or a member of the team; an organisation member who is not is
 * refused with 403 "Must be a team member", anyone else gets 404. Then org.GetTeamMember
 * (routers/api/v1/org/team.go:432-470): an unknown user or one not in the team is a 404, a member the
 * user (convert.ToUser for the doer).
 */
export const getTeamMember: RouteHandler = (ctx) => {
  const doer = requireToken(ctx);
  const store = ctx.forge.store;
  const team = store.teamById(paramInt(ctx, "id"));
  if (!team) throw notFound(ctx.forge.baseUrl);
  if (doer.is_admin !== 1) {
    const owners = store.teamByName(team.org_id, OWNER_TEAM_NAME);
    const isOwner = owners !== undefined && store.isTeamUser(owners.id, doer.id);
    if (!isOwner && !store.isTeamUser(team.id, doer.id)) {
      if (store.isOrgMember(team.org_id, doer.id)) throw apiError(ctx.forge.baseUrl, 403, "Must be a team member");
      throw notFound(ctx.forge.baseUrl);
    }
  }
  const user = store.userByLogin(ctx.params.username ?? "");
  if (!user) throw notFound(ctx.forge.baseUrl, "GetUserByName", [`user redirect does not exist [name: ${ctx.params.username ?? ""}]`]);
  if (!store.isTeamUser(team.id, user.id)) throw notFound(ctx.forge.baseUrl);
  return { status: 200, json: toApiUser(ctx.forge, user, doer) };
};
