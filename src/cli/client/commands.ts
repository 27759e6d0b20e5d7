/** The API client command names (a tiny module: src/main.ts imports it statically). */
export const CLIENT_COMMANDS = [
  'brands',
  'assets',
  'extract',
  'dna',
  'scenes',
  'environments',
  'enhance',
  'videos',
  'usage',
] as const;

export type ClientCommand = (typeof CLIENT_COMMANDS)[number];
export const isClientCommand = (c: string): c is ClientCommand => (CLIENT_COMMANDS as readonly string[]).includes(c);

export const CLIENT_USAGE = `API client commands (server and key from ATELIER_URL + ATELIER_API_KEY, or a profile in
~/.config/atelier/config.json, ATELIER_CONFIG to move it, --profile NAME to pick one):
  brands list|get|create|update          assets upload|get|list|cancel
  extract create|get|commit|delete       dna list|create|get|active|activate|cancel|delete|rerun
  scenes create|get|list|refine|like     environments create|get
  enhance scene|video|get                videos create|get|list
  usage
Common options: --json (raw JSON on stdout), --wait (poll until done, progress on stderr),
--out DIR (save generated images/videos), --profile NAME, -h/--help (a group's commands).
Exit codes: 0 ok, 1 API or network error (message carries the API error code), 2 usage error.`;
