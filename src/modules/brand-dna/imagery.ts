/**
 * Imagery subjects from the words around pictures (alt texts, file names, tags, descriptions):
 * a small fixed vocabulary of subject categories, each with the words that point at it. Pure.
 */
const SUBJECTS: Record<string, string[]> = {
  people: [
    'person',
    'people',
    'woman',
    'women',
    'man',
    'men',
    'model',
    'team',
    'portrait',
    'kid',
    'kids',
    'child',
    'children',
    'girl',
    'boy',
    'family',
    'face',
    'customer',
    'smiling',
  ],
  product: [
    'product',
    'bottle',
    'package',
    'packaging',
    'box',
    'jar',
    'can',
    'mug',
    'cup',
    'tote',
    'bag',
    'cap',
    'hat',
    'watch',
    'phone',
    'sticker',
    'notebook',
  ],
  food: [
    'food',
    'dish',
    'meal',
    'coffee',
    'cake',
    'fruit',
    'salad',
    'pizza',
    'bread',
    'drink',
    'recipe',
    'chocolate',
    'tea',
    'wine',
    'burger',
  ],
  nature: [
    'nature',
    'forest',
    'mountain',
    'mountains',
    'ocean',
    'sea',
    'beach',
    'tree',
    'trees',
    'flower',
    'flowers',
    'landscape',
    'garden',
    'sky',
    'lake',
    'river',
    'field',
  ],
  interior: [
    'room',
    'interior',
    'kitchen',
    'living',
    'sofa',
    'furniture',
    'bedroom',
    'bathroom',
    'chair',
    'table',
    'lamp',
    'shelf',
  ],
  fashion: [
    'dress',
    'shirt',
    'tshirt',
    't-shirt',
    'tee',
    'hoodie',
    'jacket',
    'outfit',
    'fashion',
    'clothing',
    'jeans',
    'sneaker',
    'sneakers',
    'shoe',
    'shoes',
    'apparel',
  ],
  technology: ['laptop', 'computer', 'screen', 'device', 'app', 'code', 'dashboard', 'software', 'robot', 'chip'],
  architecture: ['building', 'city', 'architecture', 'street', 'skyline', 'office', 'store', 'shop'],
  animals: ['dog', 'cat', 'pet', 'animal', 'bird', 'horse', 'puppy', 'kitten'],
  sport: [
    'sport',
    'running',
    'runner',
    'bike',
    'cycling',
    'gym',
    'yoga',
    'fitness',
    'football',
    'soccer',
    'tennis',
    'ski',
  ],
  travel: ['travel', 'hotel', 'trip', 'vacation', 'holiday', 'airport', 'destination'],
};

const LOOKUP = new Map<string, string>();
for (const [subject, words] of Object.entries(SUBJECTS)) for (const w of words) LOOKUP.set(w, subject);

/** Subject categories mentioned at least once, most mentioned first (at most `max`). */
export function subjectsIn(texts: readonly string[], max = 6): string[] {
  const counts = new Map<string, number>();
  for (const t of texts) {
    for (const w of t.toLowerCase().split(/[^\p{L}\p{N}-]+/u)) {
      const s = LOOKUP.get(w) ?? LOOKUP.get(w.replace(/s$/, ''));
      if (s) counts.set(s, (counts.get(s) ?? 0) + 1);
    }
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, max)
    .map(([s]) => s);
}
