import type { VenueSeed } from './venueSeed';

const FIRST = ['Giulia', 'Ahmet', 'Francesca', 'Mert', 'Elena', 'Kerem', 'Sara', 'Davide', 'Deniz', 'Paolo', 'Ece',
  'Roberto', 'Nazlı', 'Andrea', 'Oğuz', 'Valentina', 'Serkan', 'Martina', 'Tolga', 'Federica', 'Barış'];
const LAST = ['Romano', 'Yılmaz', 'Esposito', 'Demir', 'Colombo', 'Kaya', 'Rizzo', 'Şahin', 'Moretti', 'Aydın',
  'Galli', 'Koç', 'Lombardi', 'Polat', 'Bruno', 'Erdem', 'Fontana', 'Aksoy', 'Costa', 'Kılıç', 'Gallo'];
// 42 staff: role counts of a busy 3-room restaurant.
const ROLES = [
  ...Array<string>(2).fill('Manager'), ...Array<string>(4).fill('Host'), ...Array<string>(14).fill('Waiter'),
  ...Array<string>(5).fill('Bartender'), ...Array<string>(3).fill('Chef'), ...Array<string>(2).fill('Sous Chef'),
  ...Array<string>(8).fill('Cook'), ...Array<string>(4).fill('Runner'),
];

/** La Terrazza: the rich sample venue, an Italian restaurant with a terrace and a bar. */
export const LA_TERRAZZA: VenueSeed = {
  key: 'laTerrazza',
  name: 'La Terrazza',
  slug: 'la-terrazza',
  paymentLinkEnabled: true,
  codePrefix: 'LT',
  phonePrefix: '+90532',
  revenueCenters: [
    {
      name: 'Main Dining',
      tables: Array.from({ length: 12 }, (_, i) => ({ name: `T${i + 1}`, capacity: [2, 4, 4, 6][i % 4] as number })),
      serviceChargePercent: 10, walkIns: false, stayMinutes: 120,
      slots: ['12:30', '13:00', '19:30', '20:00', '20:30', '21:00'],
    },
    {
      name: 'Terrace',
      tables: Array.from({ length: 5 }, (_, i) => ({ name: `Terrace ${i + 1}`, capacity: i % 2 === 0 ? 4 : 2 })),
      serviceChargePercent: 10, walkIns: false, stayMinutes: 120,
      slots: ['13:00', '19:00', '20:30'],
    },
    {
      name: 'Bar',
      tables: Array.from({ length: 3 }, (_, i) => ({ name: `Bar ${i + 1}`, capacity: 2 })),
      serviceChargePercent: null, walkIns: true, stayMinutes: 90,
      slots: ['18:30', '21:30'],
    },
  ],
  // Distinct pairs: for i and i + 21 the last names differ by 3 places.
  staff: ROLES.map((role, i) => ({
    first: FIRST[i % FIRST.length] as string,
    last: LAST[(i * 5 + Math.floor(i / LAST.length) * 3) % LAST.length] as string,
    role,
  })),
  customers: [
    { first: 'Marco', last: 'Bianchi', gender: 'male', nickname: 'Dottore' }, { first: 'Elif', last: 'Demir', gender: 'female' },
    { first: 'Sophie', last: 'Müller', gender: 'female' }, { first: 'Anna', last: 'Petrova', gender: 'female' },
    { first: 'James', last: 'Carter', gender: 'male' }, { first: 'Zeynep', last: 'Kaya', gender: 'female' },
    { first: 'Luca', last: 'Ferrari', gender: 'male' }, { first: 'Can', last: 'Öztürk', gender: 'male', nickname: 'Cano' },
    { first: 'Hannah', last: 'Schmidt', gender: 'female' }, { first: 'Dmitri', last: 'Ivanov', gender: 'male' },
    { first: 'Chiara', last: 'Conti', gender: 'female' }, { first: 'Emre', last: 'Aydın', gender: 'male' },
    { first: 'Olivia', last: 'Brown', gender: 'female' }, { first: 'Lukas', last: 'Weber', gender: 'male' },
    { first: 'Selin', last: 'Arslan', gender: 'female' }, { first: 'Matteo', last: 'Greco', gender: 'male' },
    { first: 'Irina', last: 'Sokolova', gender: 'female' }, { first: 'Burak', last: 'Çelik', gender: 'male' },
    { first: 'Emma', last: 'Wilson', gender: 'female' }, { first: 'Francesca', last: 'Ricci', gender: 'female', nickname: 'Franci' },
    { first: 'Mehmet', last: 'Şahin', gender: 'male' }, { first: 'Laura', last: 'Fischer', gender: 'female' },
    { first: 'Alessandro', last: 'Marino', gender: 'male' }, { first: 'Ayşe', last: 'Yıldız', gender: 'female' },
    { first: 'Noah', last: 'Taylor', gender: 'male' },
  ],
  menu: [
    { name: 'Burrata', priceCents: 1250, course: 'food' },
    { name: 'Bruschetta al Pomodoro', priceCents: 750, course: 'food' },
    { name: 'Carpaccio di Manzo', priceCents: 1400, course: 'food' },
    { name: 'Vitello Tonnato', priceCents: 1350, course: 'food' },
    { name: 'Pizza Margherita', priceCents: 950, course: 'food' },
    { name: 'Pizza Diavola', priceCents: 1150, course: 'food' },
    { name: 'Pizza Quattro Formaggi', priceCents: 1200, course: 'food' },
    { name: 'Spaghetti alla Carbonara', priceCents: 1300, course: 'food' },
    { name: 'Tagliatelle al Ragù', priceCents: 1450, course: 'food' },
    { name: 'Risotto ai Funghi Porcini', priceCents: 1500, course: 'food' },
    { name: 'Saltimbocca alla Romana', priceCents: 1950, course: 'food' },
    { name: 'Branzino al Forno', priceCents: 2200, course: 'food' },
    { name: 'Tiramisu', priceCents: 700, course: 'food' },
    { name: 'Panna Cotta', priceCents: 650, course: 'food' },
    { name: 'Cannoli Siciliani', priceCents: 650, course: 'food' },
    { name: 'Espresso', priceCents: 250, course: 'drink' },
    { name: 'Cappuccino', priceCents: 350, course: 'drink' },
    { name: 'Negroni', priceCents: 900, course: 'drink' },
    { name: 'Aperol Spritz', priceCents: 850, course: 'drink' },
    { name: 'Prosecco (glass)', priceCents: 700, course: 'drink' },
    { name: 'Chianti Classico (glass)', priceCents: 800, course: 'drink' },
    { name: 'Acqua Minerale', priceCents: 300, course: 'drink' },
    { name: 'Limonata', priceCents: 400, course: 'drink' },
  ],
  discounts: [{ name: 'Loyalty reward', cents: 500 }, { name: 'Birthday treat', cents: 1000 }],
  offers: [{ name: 'Aperitivo Hour', cents: 400 }, { name: 'Lunch Menu', cents: 600 }],
  deliveryAddresses: ['Bağdat Caddesi 214, Kadıköy, İstanbul', 'Teşvikiye Caddesi 41, Şişli, İstanbul',
    'Cihangir Caddesi 8, Beyoğlu, İstanbul'],
  taxRatePercent: 10,
  checkCount: 48,
  openCheckCount: 12,
  deliveryEvery: 12,
  busyDayCheckCount: 30,
  bookers: ['Online booking', 'Giulia Romano', 'Kerem Gallo', 'Phone booking'],
};
