import type { StoredPassenger } from '../passengers/passenger-list.model';

const PEOPLE: Array<{ nationality: string; surnames: string[]; names: { M: string[]; F: string[] }; docPrefix: string }> = [
  { nationality: 'IT', surnames: ['ROSSI', 'BIANCHI', 'ESPOSITO', 'RICCI', 'MARINO', 'GRECO', 'DE LUCA', 'CONTI'], names: { M: ['MARCO', 'LUCA', 'GIUSEPPE', 'ANDREA'], F: ['GIULIA', 'FRANCESCA', 'CHIARA', 'SOFIA'] }, docPrefix: 'YA' },
  { nationality: 'GB', surnames: ['SMITH', 'JONES', 'TAYLOR', 'BROWN', 'WILLIAMS'], names: { M: ['JAMES', 'OLIVER', 'HARRY'], F: ['EMMA', 'CHARLOTTE', 'AMELIA'] }, docPrefix: '5' },
  { nationality: 'FR', surnames: ['MARTIN', 'BERNARD', 'DUBOIS', 'LEFEBVRE'], names: { M: ['LOUIS', 'JULES', 'HUGO'], F: ['CAMILLE', 'LEA', 'MANON'] }, docPrefix: '19' },
  { nationality: 'DE', surnames: ['MUELLER', 'SCHMIDT', 'SCHNEIDER', 'FISCHER'], names: { M: ['LUKAS', 'FELIX', 'JONAS'], F: ['ANNA', 'LENA', 'MARIE'] }, docPrefix: 'C' },
  { nationality: 'ES', surnames: ['GARCIA', 'FERNANDEZ', 'LOPEZ', 'MARTINEZ'], names: { M: ['PABLO', 'JAVIER', 'DIEGO'], F: ['LUCIA', 'CARMEN', 'PAULA'] }, docPrefix: 'PA' },
];

export type Random = () => number;

/** A deterministic pseudo-random generator (mulberry32), so the demo data is the same on every seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** A plausible group of travellers, sometimes a family with an infant on a parent's lap. */
export function demoPassengers(random: Random, departure: Date, count: number): StoredPassenger[] {
  const group = pick(random, PEOPLE);
  const passengers: StoredPassenger[] = [];
  for (let index = 0; index < count; index += 1) {
    const gender = random() < 0.5 ? 'M' : 'F';
    const born = new Date(Date.UTC(1950 + Math.floor(random() * 55), Math.floor(random() * 12), 1 + Math.floor(random() * 28)));
    const expiry = new Date(departure.getTime() + (200 + Math.floor(random() * 3000)) * 86_400_000);
    const typedoc = random() < 0.7 ? 'P' : 'I';
    passengers.push({
      id: index + 1,
      surname: pick(random, group.surnames),
      name: pick(random, group.names[gender]),
      luogonascita: group.nationality,
      nazionalita: group.nationality,
      typedoc,
      numberdoc: `${group.docPrefix}${String(Math.floor(random() * 10_000_000)).padStart(7, '0')}`,
      date_born: isoDate(born),
      scadenza: isoDate(expiry),
      issuingstate: group.nationality,
      email: random() < 0.6 ? `traveller${Math.floor(random() * 9000) + 1000}@example.com` : null,
      phone: random() < 0.5 ? `+39347${String(Math.floor(random() * 10_000_000)).padStart(7, '0')}` : null,
      is_carring_infant: false,
      gender,
      parent_id: null,
    });
  }
  if (passengers.length >= 3 && random() < 0.3) {
    // The first adult travels with an infant born a few months before departure.
    const parent = passengers[0];
    const infant = passengers[passengers.length - 1];
    parent.is_carring_infant = true;
    infant.surname = parent.surname;
    infant.date_born = isoDate(new Date(departure.getTime() - (60 + Math.floor(random() * 500)) * 86_400_000));
    infant.parent_id = parent.id;
  }
  return passengers;
}
