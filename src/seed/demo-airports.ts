/** Real European and Mediterranean airports the demo data flies between (codes as published by ICAO/IATA). */
export interface DemoAirport {
  icao: string;
  iata: string;
  city: string;
  country: string;
  countryTag: string;
  timezone: string;
  /** Latitude and longitude in degrees, only to give demo flights plausible durations. */
  lat: number;
  lon: number;
}

export const DEMO_AIRPORTS: DemoAirport[] = [
  { icao: 'LIRF', iata: 'FCO', city: 'Rome', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 41.80, lon: 12.25 },
  { icao: 'LIRA', iata: 'CIA', city: 'Rome', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 41.80, lon: 12.59 },
  { icao: 'LIML', iata: 'LIN', city: 'Milan', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 45.45, lon: 9.28 },
  { icao: 'LIMC', iata: 'MXP', city: 'Milan', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 45.63, lon: 8.72 },
  { icao: 'LIPZ', iata: 'VCE', city: 'Venice', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 45.51, lon: 12.35 },
  { icao: 'LIRN', iata: 'NAP', city: 'Naples', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 40.88, lon: 14.29 },
  { icao: 'LICJ', iata: 'PMO', city: 'Palermo', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 38.18, lon: 13.10 },
  { icao: 'LICC', iata: 'CTA', city: 'Catania', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 37.47, lon: 15.07 },
  { icao: 'LIEO', iata: 'OLB', city: 'Olbia', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 40.90, lon: 9.52 },
  { icao: 'LIRQ', iata: 'FLR', city: 'Florence', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome', lat: 43.81, lon: 11.20 },
  { icao: 'LFPB', iata: 'LBG', city: 'Paris', country: 'France', countryTag: 'FR', timezone: 'Europe/Paris', lat: 48.97, lon: 2.44 },
  { icao: 'LFMN', iata: 'NCE', city: 'Nice', country: 'France', countryTag: 'FR', timezone: 'Europe/Paris', lat: 43.66, lon: 7.22 },
  { icao: 'LFMD', iata: 'CEQ', city: 'Cannes', country: 'France', countryTag: 'FR', timezone: 'Europe/Paris', lat: 43.54, lon: 6.95 },
  { icao: 'EGGW', iata: 'LTN', city: 'London', country: 'United Kingdom', countryTag: 'GB', timezone: 'Europe/London', lat: 51.87, lon: -0.37 },
  { icao: 'EGLF', iata: 'FAB', city: 'Farnborough', country: 'United Kingdom', countryTag: 'GB', timezone: 'Europe/London', lat: 51.28, lon: -0.78 },
  { icao: 'LEMD', iata: 'MAD', city: 'Madrid', country: 'Spain', countryTag: 'ES', timezone: 'Europe/Madrid', lat: 40.47, lon: -3.56 },
  { icao: 'LEBL', iata: 'BCN', city: 'Barcelona', country: 'Spain', countryTag: 'ES', timezone: 'Europe/Madrid', lat: 41.30, lon: 2.08 },
  { icao: 'LEPA', iata: 'PMI', city: 'Palma de Mallorca', country: 'Spain', countryTag: 'ES', timezone: 'Europe/Madrid', lat: 39.55, lon: 2.74 },
  { icao: 'LEIB', iata: 'IBZ', city: 'Ibiza', country: 'Spain', countryTag: 'ES', timezone: 'Europe/Madrid', lat: 38.87, lon: 1.37 },
  { icao: 'LPPT', iata: 'LIS', city: 'Lisbon', country: 'Portugal', countryTag: 'PT', timezone: 'Europe/Lisbon', lat: 38.78, lon: -9.14 },
  { icao: 'LPFR', iata: 'FAO', city: 'Faro', country: 'Portugal', countryTag: 'PT', timezone: 'Europe/Lisbon', lat: 37.01, lon: -7.97 },
  { icao: 'LGAV', iata: 'ATH', city: 'Athens', country: 'Greece', countryTag: 'GR', timezone: 'Europe/Athens', lat: 37.94, lon: 23.94 },
  { icao: 'LGMK', iata: 'JMK', city: 'Mykonos', country: 'Greece', countryTag: 'GR', timezone: 'Europe/Athens', lat: 37.44, lon: 25.35 },
  { icao: 'LGSR', iata: 'JTR', city: 'Santorini', country: 'Greece', countryTag: 'GR', timezone: 'Europe/Athens', lat: 36.40, lon: 25.48 },
  { icao: 'LSGG', iata: 'GVA', city: 'Geneva', country: 'Switzerland', countryTag: 'CH', timezone: 'Europe/Zurich', lat: 46.24, lon: 6.11 },
  { icao: 'LSZH', iata: 'ZRH', city: 'Zurich', country: 'Switzerland', countryTag: 'CH', timezone: 'Europe/Zurich', lat: 47.46, lon: 8.55 },
  { icao: 'EDDM', iata: 'MUC', city: 'Munich', country: 'Germany', countryTag: 'DE', timezone: 'Europe/Berlin', lat: 48.35, lon: 11.79 },
  { icao: 'LOWW', iata: 'VIE', city: 'Vienna', country: 'Austria', countryTag: 'AT', timezone: 'Europe/Vienna', lat: 48.11, lon: 16.57 },
  { icao: 'EHAM', iata: 'AMS', city: 'Amsterdam', country: 'Netherlands', countryTag: 'NL', timezone: 'Europe/Amsterdam', lat: 52.31, lon: 4.76 },
  { icao: 'LMML', iata: 'MLA', city: 'Luqa', country: 'Malta', countryTag: 'MT', timezone: 'Europe/Malta', lat: 35.86, lon: 14.48 },
  { icao: 'LDDU', iata: 'DBV', city: 'Dubrovnik', country: 'Croatia', countryTag: 'HR', timezone: 'Europe/Zagreb', lat: 42.56, lon: 18.27 },
  { icao: 'LTFM', iata: 'IST', city: 'Istanbul', country: 'Turkey', countryTag: 'TR', timezone: 'Europe/Istanbul', lat: 41.26, lon: 28.74 },
  { icao: 'LCLK', iata: 'LCA', city: 'Larnaca', country: 'Cyprus', countryTag: 'CY', timezone: 'Asia/Nicosia', lat: 34.88, lon: 33.63 },
  { icao: 'GMMX', iata: 'RAK', city: 'Marrakesh', country: 'Morocco', countryTag: 'MA', timezone: 'Africa/Casablanca', lat: 31.61, lon: -8.04 },
];
