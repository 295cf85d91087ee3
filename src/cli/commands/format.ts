/** "2026-11-29T11:00:00.000Z" -> "2026-11-29 11:00"; null -> "-". */
export function shortTime(iso: string | null): string {
  if (!iso) return "-";
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}` : iso;
}
