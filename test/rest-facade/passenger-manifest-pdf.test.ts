import { execFileSync, spawnSync } from 'node:child_process';
import request from 'supertest';
import { PassengerListExportsDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData, RESOURCES } from '../helpers/timeline-fixtures';

const havePdftotext = spawnSync('pdftotext', ['-v']).error === undefined;
const describeWithPdftotext = havePdftotext ? describe : describe.skip;
if (!havePdftotext) {
  describe.skip('the PDF manifest (skipped: pdftotext from poppler-utils is not installed)', () => it('reads the PDF', () => undefined));
}

const binary = (res: request.Response, callback: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
};

/** The text of a PDF as poppler reads it, page by page (form feeds between pages). */
const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');

interface Word {
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Each page's words with their boxes (points from the page's top left), as poppler places them (pdftotext -bbox). */
function pdfWords(pdf: Buffer): Word[][] {
  const html = execFileSync('pdftotext', ['-bbox', '-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');
  return html
    .split('<page ')
    .slice(1)
    .map((page) =>
      [...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((match) => ({
        xMin: Number(match[1]),
        yMin: Number(match[2]),
        xMax: Number(match[3]),
        yMax: Number(match[4]),
        text: match[5].replace(/&(\w+);/g, (entity, name: string) => ENTITIES[name] ?? entity),
      })),
    );
}

/** Whether two words' boxes cover the same spot (more than a rounding's worth in both directions). */
const overlap = (a: Word, b: Word) => Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin) > 0.5 && Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin) > 0.5;

/** The manifest table's columns, left to right, as the writer lays them out (36 pt margin). */
const COLUMN_EDGES = { row: [36, 64], surname: [64, 184], name: [184, 304], numberdoc: [528, 618] } as const;

describeWithPdftotext('GET /flight/<id>/passenger as a PDF manifest', () => {
  let testApp: TestApp;
  let reader: string;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_manifest_pdf', { MANIFEST_OPERATOR: 'Aquila Jet Charter S.p.A.' });
    reader = `Bearer ${await testApp.token(['passengers:read', 'timeline:read'], 'pdf-reader')}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    const created = [
      passengerRecord(1, { surname: 'Wróbel', name: 'Łukasz', nazionalita: 'PL', issuingstate: 'PL', numberdoc: 'EA0012345' }),
      passengerRecord(2, { surname: 'Nguyễn', name: 'Văn An', nazionalita: 'VN', is_carring_infant: true }),
      passengerRecord(3, { surname: 'Groß', name: 'Jürgen', nazionalita: 'DE' }),
      passengerRecord(4, { surname: 'Erdős', name: 'Pál', gender: 'F', nazionalita: 'HU' }),
      // Enough rows for a second page.
      ...Array.from({ length: 40 }, (_, index) => passengerRecord(10 + index, { surname: `Filler${String.fromCharCode(65 + (index % 26))}`, name: 'Anna' })),
    ];
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
  });
  afterAll(() => testApp.close());

  it('prints the flight, its aircraft and operator, every passenger with accents intact, page numbers, version and time', async () => {
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', reader).set('Accept', 'application/pdf').buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="flight-${flightId}-passengers-v1.pdf"`);
    expect(res.headers.etag).toBe('"1-pdf"');
    const text = pdfText(res.body as Buffer);
    const pages = text.split('\f').filter((page) => page.trim());
    expect(pages.length).toBe(2);
    expect(text).toContain('PASSENGER MANIFEST');
    expect(text).toMatch(/Operator:\s+Aquila Jet Charter S\.p\.A\./);
    const resource = RESOURCES.find((entry) => entry.id === 2)!;
    expect(text).toMatch(new RegExp(`Aircraft registration:\\s+${resource.registration}`));
    expect(text).toMatch(new RegExp(`Aircraft type:\\s+${resource.title.replace('+', '\\+')}`));
    expect(text).toMatch(/Departure \(embarkation\):\s+LPPT \/ LIS \/ Lisbon, 2026-12-15 08:00 local \(Europe\/Lisbon\)/);
    expect(text).toMatch(/Arrival \(disembarkation\):\s+LIRF \/ FCO \/ Rome, 2026-12-15 12:00 local \(Europe\/Rome\)/);
    for (const [surname, name] of [['WRÓBEL', 'ŁUKASZ'], ['NGUYỄN', 'VĂN AN'], ['GROSS', 'JÜRGEN'], ['ERDŐS', 'PÁL']]) {
      expect(text).toMatch(new RegExp(`${surname}\\s+${name}`));
    }
    expect(text).toMatch(/1\s+WRÓBEL\s+ŁUKASZ\s+M\s+1980-05-01\s+PL\s+Passport\s+EA0012345\s+2031-01-01\s+PL\s+no/);
    expect(pages[0]).toMatch(/list version 1 · produced \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ · page 1 of 2/);
    expect(pages[1]).toMatch(/page 2 of 2/);
    expect(pages[1]).toContain('Surname');

    const exports = (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports;
    expect(exports[0]).toMatchObject({ subject: 'pdf-reader', format: 'pdf', version: 1 });
  });

  /** A flight of its own with these passengers (created through the push). */
  async function flightWith(day: number, created: Record<string, unknown>[]): Promise<number> {
    const id = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: `2026-12-${day}T08:00:00Z`, arrivalAt: `2026-12-${day}T11:00:00Z` });
    await request(testApp.app).post(`/api/broker/v0/flight/${id}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
    return id;
  }

  it('prints Greek and Cyrillic names, which its font has', async () => {
    const id = await flightWith(20, [
      passengerRecord(201, { surname: 'Παπαδόπουλος', name: 'Νίκος', nazionalita: 'GR' }),
      passengerRecord(202, { surname: 'Щербаков', name: 'Юлия', nazionalita: 'RU' }),
    ]);
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${id}/passenger?format=pdf`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    const text = pdfText(res.body as Buffer);
    expect(text).toMatch(/1\s+ΠΑΠΑΔΌΠΟΥΛΟΣ\s+ΝΊΚΟΣ\s+M/);
    expect(text).toMatch(/2\s+ЩЕРБАКОВ\s+ЮЛИЯ\s+M/);
  });

  it('is a 422 listing every passenger with characters its font cannot draw or a right-to-left script, instead of empty boxes', async () => {
    const id = await flightWith(21, [
      passengerRecord(301, { surname: 'Rossi', name: 'Maria' }),
      passengerRecord(302, { surname: 'Smith', name: '小明', nazionalita: 'CN' }),
      passengerRecord(303, { surname: '山田', name: '太郎', nazionalita: 'JP' }),
      passengerRecord(304, { surname: 'Kim', name: '민준', nazionalita: 'KR' }),
      passengerRecord(305, { surname: 'כהן', name: 'David', nazionalita: 'IL' }),
      passengerRecord(306, { surname: 'Lee', name: 'Ann 🦄' }),
    ]);
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${id}/passenger?format=pdf`).set('Authorization', reader).expect(422);
    expect(res.body.error.code).toBe('UNPROCESSABLE');
    expect(res.body.error.message).toMatch(/^The PDF manifest cannot print the names of 5 passengers \(rows 2, 3, 4, 5, 6\): they have characters its font, DejaVu Sans, has no glyph for/);
    expect(res.body.error.message).toMatch(/right-to-left/);
    expect(res.body.error.message).toMatch(/format=xlsx or format=csv, which keep every character/);
    expect(res.body.error.details.map((detail: Record<string, unknown>) => [detail.row, detail.id, detail.field, detail.value])).toEqual([
      [2, 302, 'name', '小明'],
      [3, 303, 'surname', '山田'],
      [3, 303, 'name', '太郎'],
      [4, 304, 'name', '민준'],
      [5, 305, 'surname', 'כהן'],
      [6, 306, 'name', 'ANN 🦄'],
    ]);
    expect(res.body.error.details[0].message).toBe('Passenger 2 (id 302): given names "小明" has characters the manifest cannot print: 小 (Han, U+5C0F), 明 (Han, U+660E)');
    expect(res.body.error.details[5].message).toMatch(/🦄 \(symbol, U\+1F984\)$/);
    // Refused before anything is recorded; the xlsx of the same list keeps every character.
    expect((await testApp.graphql(PassengerListExportsDocument, { flightId: id })).body.data!.passengerListExports).toEqual([]);
    await request(testApp.app).get(`/api/broker/v0/flight/${id}/passenger?format=xlsx`).set('Authorization', reader).expect(200);
  });

  it('keeps every cell within its row: a long name is shrunk or wrapped into a taller row, whole, rows in order across pages', async () => {
    const hundred = 'Wolfeschlegelsteinhausenbergerdorff '.repeat(3).slice(0, 100);
    const hundredGiven = 'Adolph Blaine Charles David Earl Frederick Gerald Hubert Irvin John Kenneth Lloyd Martin Nero Oliver';
    const long: [string, string][] = [
      ['Fernández de Córdoba y Figueroa', 'Gonzalo'],
      ['Wolfeschlegelsteinhausenbergerdorff', 'Hubert Blaine'],
      [hundred, hundredGiven],
      ['von und zu Schwarzenberg-Hohenlohe-Langenburg', 'Maria Theresia Walburga Amalia Christina'],
      ['Østergård-Lindqvist', 'Anna-Karin'],
    ];
    // Long names among short ones, enough for tall rows to meet page ends.
    const created = Array.from({ length: 45 }, (_, index) => {
      const [surname, name] = index % 3 === 0 ? long[(index / 3) % long.length] : [`Short${String.fromCharCode(65 + (index % 26))}`, 'Anna'];
      return passengerRecord(900 + index, { surname, name, numberdoc: index % 7 === 0 ? `AB${String(index).padStart(2, '0')}CDEFGHIJ0123456789ABCDEFGH` : `YA${index}` });
    });
    const id = await flightWith(22, created);
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${id}/passenger?format=pdf`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    const pages = pdfWords(res.body as Buffer);
    expect(pages.length).toBeGreaterThan(1);

    const seen: number[] = [];
    for (const words of pages) {
      // No two words of a page cover the same spot: nothing is printed over anything else.
      for (let i = 0; i < words.length; i += 1) {
        for (let j = i + 1; j < words.length; j += 1) {
          if (overlap(words[i], words[j])) throw new Error(`"${words[i].text}" and "${words[j].text}" overlap on a page: ${JSON.stringify([words[i], words[j]])}`);
        }
      }
      const heading = words.find((word) => word.text === 'Surname')!;
      const inTable = words.filter((word) => word.yMin > heading.yMax && word.yMin < 540);
      const within = (word: Word, [left, right]: readonly [number, number]) => word.xMin >= left - 0.5 && word.xMin < right;
      const starts = inTable.filter((word) => within(word, COLUMN_EDGES.row) && /^\d+$/.test(word.text)).sort((a, b) => a.yMin - b.yMin);
      starts.forEach((start, index) => {
        const row = Number(start.text);
        seen.push(row);
        const end = starts[index + 1]?.yMin ?? Infinity;
        const cell = (edges: readonly [number, number]) =>
          inTable
            .filter((word) => word.yMin >= start.yMin - 0.5 && word.yMin < end - 0.5 && within(word, edges))
            .sort((a, b) => a.yMin - b.yMin || a.xMin - b.xMin)
            .map((word) => word.text)
            .join('');
        // The whole stored value, in this row's band and column (line breaks and spaces aside).
        const passenger = created[row - 1] as { surname: string; name: string; numberdoc: string };
        const compact = (text: string) => text.toUpperCase().replace(/\s+/g, '');
        expect({ row, surname: cell(COLUMN_EDGES.surname) }).toEqual({ row, surname: compact(passenger.surname) });
        expect({ row, name: cell(COLUMN_EDGES.name) }).toEqual({ row, name: compact(passenger.name) });
        expect({ row, numberdoc: cell(COLUMN_EDGES.numberdoc) }).toEqual({ row, numberdoc: passenger.numberdoc });
      });
    }
    // Every row once, in list order; none split across pages (a row's words are all on its number's page).
    expect(seen).toEqual(created.map((_, index) => index + 1));
  });

  it('needs timeline:read besides passengers:read: the header is the flight’s timeline data', async () => {
    const passengersOnly = `Bearer ${await testApp.token(['passengers:read'])}`;
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger?format=pdf`).set('Authorization', passengersOnly).expect(403);
    expect(res.body.error.message).toMatch(/timeline:read/);
  });

  it('a flight without a list gives a manifest with its header and no rows', async () => {
    const empty = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-16T08:00:00Z', arrivalAt: '2026-12-16T11:00:00Z' });
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${empty}/passenger?format=pdf`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    const text = pdfText(res.body as Buffer);
    expect(text).toMatch(/Passengers:\s+0/);
    expect(text).toContain('No passengers on the list.');
    expect(text).toContain('list version 0');
  });
});
