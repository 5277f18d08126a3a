import type { ResourceDocument } from '../resources/resource.model';

/** The broker's demo fleet: business jets with real-format registrations and CSS colour names. */
export const DEMO_RESOURCES: ResourceDocument[] = [
  { resourceId: 1, title: 'Citation XLS+', registration: 'I-FLYB', colours: { background: 'steelblue', text: 'white', border: 'navy' } },
  { resourceId: 2, title: 'Phenom 300E', registration: '9H-VJA', colours: { background: 'darkorange', text: 'black', border: 'chocolate' } },
  { resourceId: 3, title: 'Challenger 350', registration: 'OE-HGV', colours: { background: 'seagreen', text: 'white', border: 'darkgreen' } },
  { resourceId: 4, title: 'Falcon 2000LXS', registration: 'HB-JFN', colours: { background: 'slateblue', text: 'white', border: 'darkslateblue' } },
  { resourceId: 5, title: 'Global 6000', registration: 'D-AGLB', colours: { background: 'firebrick', text: 'white', border: 'maroon' } },
  { resourceId: 6, title: 'Citation Latitude', registration: 'CS-LTD', colours: { background: 'teal', text: 'white', border: 'darkslategray' } },
  { resourceId: 7, title: 'King Air 350i', registration: 'EC-KAI', colours: { background: 'goldenrod', text: 'black', border: 'darkgoldenrod' } },
];
