import request from 'supertest';
import { PassengerListExportsDocument } from '../../src/graphql/generated/operations';
import { transliterateIcao } from '../../src/passengers/export/icao-transliteration';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

// The independent reader: the `edifact` package's streaming parser (CommonJS, untyped).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Parser = require('edifact/parser.js') as new () => {
  encoding(level: string): void;
  on(event: string, listener: (data?: string) => void): void;
  write(text: string): void;
  end(): void;
};

interface Segment {
  tag: string;
  elements: string[][];
}

/** The interchange as the parser reads it: each segment's tag and its elements' components (UNA read by the parser). */
function parseEdifact(text: string): Segment[] {
  const parser = new Parser();
  parser.encoding('UNOA');
  const segments: Segment[] = [];
  parser.on('opensegment', (tag) => segments.push({ tag: tag!, elements: [] }));
  parser.on('element', () => segments[segments.length - 1].elements.push([]));
  parser.on('component', (data) => {
    const elements = segments[segments.length - 1].elements;
    elements[elements.length - 1].push(data!);
  });
  parser.write(text);
  parser.end();
  return segments;
}

/** A segment as text again, components joined by ':' and elements by '+' (unescaped values). */
const show = (segment: Segment) => [segment.tag, ...segment.elements.map((element) => element.join(':'))].join('+');

const binary = (res: request.Response, callback: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
};

describe('GET /flight/<id>/passenger as a PAXLST message', () => {
  let testApp: TestApp;
  let reader: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_paxlst', { PAXLST_SENDER_ID: 'BROKERGW', PAXLST_RECIPIENT_ID: 'APISPT', PAXLST_REPORTING_PARTY: "Aquila Jet+Co's" });
    reader = `Bearer ${await testApp.token(['passengers:read', 'timeline:read'], 'apis-clerk')}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    const created = [
      passengerRecord(1, { surname: 'Wróbel', name: 'Łukasz Piotr', nazionalita: 'PL', luogonascita: 'PL', issuingstate: 'PL', numberdoc: 'EA0012345', date_born: '1979-03-04', scadenza: '2030-07-08' }),
      passengerRecord(2, { surname: 'Nguyễn', name: 'Văn An', nazionalita: 'VN', luogonascita: 'VN', gender: 'F', typedoc: 'I' }),
      passengerRecord(3, { surname: 'Groß-Müller', name: 'Jürgen', nazionalita: 'DE', luogonascita: 'AT', issuingstate: 'DE' }),
    ];
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
  });
  afterAll(() => testApp.close());

  it('writes an interchange an independent EDIFACT parser reads segment by segment', async () => {
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', reader).set('Accept', 'application/edifact').buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('application/edifact');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="flight-${flightId}-passengers-v1.edi"`);
    expect(res.headers.etag).toBe('"1-paxlst"');
    const text = (res.body as Buffer).toString('latin1');
    expect(text.startsWith("UNA:+.? '")).toBe(true);
    expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
    // The reporting party's + and ' travel released.
    expect(text).toContain("NAD+MS+++AQUILA JET?+CO?'S'");

    const segments = parseEdifact(text);
    const tags = segments.map((segment) => segment.tag);
    const unb = segments[0];
    expect(unb.tag).toBe('UNB');
    expect(unb.elements[0]).toEqual(['UNOA', '4']);
    expect(unb.elements[1]).toEqual(['BROKERGW']);
    expect(unb.elements[2]).toEqual(['APISPT']);
    expect(unb.elements[3][0]).toMatch(/^\d{6}$/);
    expect(unb.elements[3][1]).toMatch(/^\d{4}$/);
    const reference = unb.elements[4][0];

    const header = segments.slice(1, 9).map(show);
    expect(header).toEqual([
      'UNH+1+PAXLST:D:05B:UN:IATA',
      'BGM+745',
      "NAD+MS+++AQUILA JET+CO'S",
      'TDT+20+IFL100',
      'LOC+125+LIS',
      'DTM+189:2612150800:201',
      'LOC+87+FCO',
      'DTM+232:2612151200:201',
    ]);
    const passengers = segments.slice(9, 9 + 30).map(show);
    expect(passengers).toEqual([
      'NAD+FL+++WROBEL:LUKASZ:PIOTR', 'ATT+2++M', 'DTM+329:790304', 'LOC+178+LIS', 'LOC+179+FCO', 'LOC+180+POL', 'NAT+2+POL', 'DOC+P:110:111+EA0012345', 'DTM+36:300708', 'LOC+91+POL',
      'NAD+FL+++NGUYEN:VAN:AN', 'ATT+2++F', 'DTM+329:800501', 'LOC+178+LIS', 'LOC+179+FCO', 'LOC+180+VNM', 'NAT+2+VNM', 'DOC+I:110:111+YA1000002', 'DTM+36:310101', 'LOC+91+ITA',
      'NAD+FL+++GROSS MUELLER:JUERGEN', 'ATT+2++M', 'DTM+329:800501', 'LOC+178+LIS', 'LOC+179+FCO', 'LOC+180+AUT', 'NAT+2+DEU', 'DOC+P:110:111+YA1000003', 'DTM+36:310101', 'LOC+91+DEU',
    ]);
    expect(segments.slice(39).map(show)).toEqual(['CNT+42:3', `UNT+${tags.indexOf('UNT') - tags.indexOf('UNH') + 1}+1`, `UNZ+1+${reference}`]);
    // UNH to UNT: 8 header segments, 10 per passenger, CNT and UNT.
    expect(tags.indexOf('UNT') - tags.indexOf('UNH') + 1).toBe(8 + 3 * 10 + 2);

    const exports = (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports;
    expect(exports[0]).toMatchObject({ subject: 'apis-clerk', format: 'paxlst', version: 1 });
  });

  it('transliterates names by ICAO Doc 9303', () => {
    expect(transliterateIcao('Ærøskøbing Åsa Þór Œuvre Łódź Ĳssel')).toBe('AEROESKOEBING AASA THOR OEUVRE LODZ IJSSEL');
    expect(transliterateIcao("O'Brien-Smith  Nguyễn Erdős")).toBe('OBRIEN SMITH NGUYEN ERDOS');
  });

  it('is a 422 naming the settings on a service without them', async () => {
    const other = await startTestApp('passenger_paxlst_unset');
    try {
      await createReferenceData(other);
      const id = await createFlight(other, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
      const res = await request(other.app).get(`/api/broker/v0/flight/${id}/passenger?format=paxlst`).set('Authorization', `Bearer ${await other.token()}`).expect(422);
      expect(res.body.error.message).toMatch(/PAXLST_SENDER_ID, PAXLST_RECIPIENT_ID and PAXLST_REPORTING_PARTY/);
    } finally {
      await other.close();
    }
  });
});
