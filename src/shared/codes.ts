import colourNames from 'color-name';
import type { ErrorDetail } from '../errors';

const CSS_COLOURS = new Set(Object.keys(colourNames));

/** Validators for the codes the timeline shows; each pushes a problem naming the field. */
export function checkIcao(field: string, value: string, problems: ErrorDetail[]): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{4}$/.test(code)) problems.push({ field, message: `${field} must be a four-letter ICAO airport code such as LIRF, got "${value}"` });
  return code;
}

export function checkIata(field: string, value: string, problems: ErrorDetail[]): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) problems.push({ field, message: `${field} must be a three-letter IATA airport code such as FCO, got "${value}"` });
  return code;
}

export function checkColour(field: string, value: string, problems: ErrorDetail[]): string {
  const name = value.trim().toLowerCase();
  if (!CSS_COLOURS.has(name)) problems.push({ field, message: `${field} must be a CSS colour name such as steelblue or white, got "${value}"` });
  return name;
}

export function checkText(field: string, value: string, problems: ErrorDetail[], maxLength = 100): string {
  const text = value.trim().replace(/\s+/g, ' ');
  if (!text) problems.push({ field, message: `${field} must not be empty` });
  else if (text.length > maxLength) problems.push({ field, message: `${field} must be at most ${maxLength} characters` });
  return text;
}
