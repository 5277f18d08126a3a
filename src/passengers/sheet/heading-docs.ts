import { headingKey, PASSENGER_SHEET_COLUMNS } from './heading-aliases';

/** The "accepted headings" table of docs/passenger-spreadsheet.md, generated from the alias data. */
export function headingTableMarkdown(): string {
  const lines = [
    '| Field | Template heading | Required | Other accepted headings | Content |',
    '|---|---|---|---|---|',
  ];
  for (const column of PASSENGER_SHEET_COLUMNS) {
    const seen = new Set([headingKey(column.heading)]);
    const others = [column.field, ...column.aliases].filter((alias) => {
      const key = headingKey(alias);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const aliases = others.map((alias) => `\`${alias}\``).join(', ');
    lines.push(`| \`${column.field}\` | ${column.heading} | ${column.required ? 'yes' : 'no'} | ${aliases} | ${column.content} |`);
  }
  return lines.join('\n');
}
