/// The templates gallery (SPEC part 3): twenty ready collections — ten habits, five plans, five
/// lists — each with realistic todos at staggered times. Habits repeat daily or weekly from the
/// day they are applied; a plan's steps are due over the following weeks; a list's items have
/// no date.
public struct TodoTemplate: Sendable {
    public struct Item: Sendable {
        public let title: String
        /// `HH:MM`, or `nil` for an untimed todo.
        public let time: String?
        public let repeating: Todos.Repeat
        /// Days after the start the item is due (plans); `nil` with no repeat: no due date.
        public let day: Int?
        public let priority: Todos.Priority
        public let remind: Bool

        init(
            _ title: String, at time: String? = nil, _ repeating: Todos.Repeat = .none, day: Int? = nil,
            _ priority: Todos.Priority = .none, remind: Bool = false
        ) {
            self.title = title
            self.time = time
            self.repeating = repeating
            self.day = day
            self.priority = priority
            self.remind = remind
        }
    }

    public let name: String
    public let kind: Todos.Kind
    public let icon: String
    public let summary: String
    public let items: [Item]

    /// The template whose name is `name`, ignoring case, spaces and dashes ("water-intake").
    public static func named(_ name: String) -> TodoTemplate? {
        func key(_ text: String) -> String { text.lowercased().filter { $0.isLetter || $0.isNumber } }
        return gallery.first { key($0.name) == key(name) }
    }

    /// Daily habit items at each of `times`.
    private static func daily(_ title: String, _ times: [String], remind: Bool = true) -> [Item] {
        times.map { Item(title, at: $0, .daily, remind: remind) }
    }

    public static let gallery: [TodoTemplate] = [
        // MARK: Habits
        TodoTemplate(
            name: "Water intake", kind: .habit, icon: "💧", summary: "A glass of water every two hours from 08:00",
            items: daily("Drink a glass of water", ["08:00", "10:00", "12:00", "14:00", "16:00", "18:00", "20:00"])),
        TodoTemplate(
            name: "Exercise", kind: .habit, icon: "🏃", summary: "Move every day, strength twice a week",
            items: [
                Item("Morning stretch (10 min)", at: "07:00", .daily, .medium, remind: true),
                Item("Brisk walk (30 min)", at: "12:30", .daily, .medium, remind: true),
                Item("Strength workout", at: "18:00", .weekly, .high, remind: true),
                Item("Long run or bike ride", at: "09:00", .weekly, .medium, remind: true),
            ]),
        TodoTemplate(
            name: "Medication", kind: .habit, icon: "💊", summary: "Medicines with meals and at bedtime",
            items: [
                Item("Morning medicine with breakfast", at: "08:00", .daily, .high, remind: true),
                Item("Midday medicine with lunch", at: "13:00", .daily, .high, remind: true),
                Item("Evening medicine with dinner", at: "19:00", .daily, .high, remind: true),
                Item("Bedtime medicine", at: "22:00", .daily, .high, remind: true),
                Item("Refill the pill organiser", at: "18:00", .weekly, .medium, remind: true),
            ]),
        TodoTemplate(
            name: "Healthy breakfast", kind: .habit, icon: "🥣", summary: "A proper breakfast before the day starts",
            items: [
                Item("Eat a healthy breakfast", at: "07:30", .daily, .medium, remind: true),
                Item("Add a piece of fruit", at: "07:45", .daily),
                Item("Plan next week's breakfasts", at: "17:00", .weekly),
            ]),
        TodoTemplate(
            name: "Skin care", kind: .habit, icon: "🧴", summary: "Morning and evening routine, a weekly mask",
            items: [
                Item("Cleanse and moisturise", at: "07:15", .daily, remind: true),
                Item("Sunscreen", at: "08:30", .daily, .medium),
                Item("Evening cleanse and night cream", at: "21:30", .daily, remind: true),
                Item("Face mask", at: "20:00", .weekly),
            ]),
        TodoTemplate(
            name: "Dental care", kind: .habit, icon: "🦷", summary: "Brush twice a day, floss at night",
            items: [
                Item("Brush teeth (2 min)", at: "07:10", .daily, .medium, remind: true),
                Item("Brush teeth (2 min)", at: "21:45", .daily, .medium, remind: true),
                Item("Floss", at: "21:50", .daily),
                Item("Change toothbrush head", at: "09:00", .monthly),
            ]),
        TodoTemplate(
            name: "Feed pets", kind: .habit, icon: "🐾", summary: "Meals, fresh water and a weekly clean",
            items: [
                Item("Feed the pets breakfast", at: "07:00", .daily, .high, remind: true),
                Item("Fresh water", at: "07:05", .daily, .medium),
                Item("Feed the pets dinner", at: "18:00", .daily, .high, remind: true),
                Item("Clean the litter tray / cage", at: "10:00", .weekly, .medium),
            ]),
        TodoTemplate(
            name: "Prayer time", kind: .habit, icon: "🕊️", summary: "Five moments of prayer through the day",
            items: daily("Prayer", ["05:30", "13:00", "16:30", "19:00", "21:00"])),
        TodoTemplate(
            name: "Daily reading", kind: .habit, icon: "📖", summary: "Twenty pages a day, a weekly reflection",
            items: [
                Item("Read 20 pages", at: "21:00", .daily, .medium, remind: true),
                Item("Note one idea from today's reading", at: "21:30", .daily),
                Item("Choose next week's book", at: "11:00", .weekly),
            ]),
        TodoTemplate(
            name: "Steps goal", kind: .habit, icon: "👟", summary: "10,000 steps, checked through the day",
            items: [
                Item("3,000 steps by midday", at: "12:00", .daily),
                Item("7,000 steps by 17:00", at: "17:00", .daily, remind: true),
                Item("10,000 steps", at: "20:30", .daily, .medium, remind: true),
            ]),

        // MARK: Plans
        TodoTemplate(
            name: "Work project", kind: .plan, icon: "💼", summary: "From kick-off to delivery over six weeks",
            items: [
                Item("Kick-off meeting and goals", at: "10:00", day: 0, .high),
                Item("Write the project plan", at: "14:00", day: 3, .high),
                Item("Agree milestones with stakeholders", at: "11:00", day: 7, .medium),
                Item("First milestone review", at: "15:00", day: 14, .medium),
                Item("Mid-project status report", at: "09:30", day: 21, .medium),
                Item("Second milestone review", at: "15:00", day: 28, .medium),
                Item("Testing and fixes", day: 35, .high),
                Item("Final delivery", at: "16:00", day: 41, .high),
                Item("Retrospective", at: "10:00", day: 42, .low),
            ]),
        TodoTemplate(
            name: "Study", kind: .plan, icon: "🎓", summary: "A four-week study plan towards an exam",
            items: [
                Item("Gather the syllabus and past papers", day: 0, .high),
                Item("Make a revision timetable", at: "19:00", day: 1, .high),
                Item("Revise topic 1", at: "18:30", day: 3, .medium),
                Item("Revise topic 2", at: "18:30", day: 7, .medium),
                Item("Revise topic 3", at: "18:30", day: 10, .medium),
                Item("Practice paper under exam conditions", at: "09:00", day: 14, .high),
                Item("Review mistakes", at: "18:30", day: 15, .medium),
                Item("Revise weak topics", at: "18:30", day: 21, .medium),
                Item("Final practice paper", at: "09:00", day: 25, .high),
                Item("Exam day: pack pens, ID, water", at: "07:30", day: 28, .high),
            ]),
        TodoTemplate(
            name: "Home improvement", kind: .plan, icon: "🔨", summary: "Repaint a room over a month",
            items: [
                Item("Choose colours and get samples", day: 0, .medium),
                Item("Get three quotes or price materials", day: 4, .medium),
                Item("Buy paint, rollers and dust sheets", at: "10:00", day: 9, .medium),
                Item("Clear the room and fill cracks", at: "09:00", day: 13, .high),
                Item("Paint the ceiling", at: "09:00", day: 14, .high),
                Item("Paint the walls (two coats)", at: "09:00", day: 20, .high),
                Item("Touch up and put the room back", at: "10:00", day: 27, .low),
            ]),
        TodoTemplate(
            name: "Event planning", kind: .plan, icon: "🎉", summary: "A family party, eight weeks out",
            items: [
                Item("Set the date and budget", day: 0, .high),
                Item("Draft the guest list", day: 3, .medium),
                Item("Book the venue", at: "12:00", day: 7, .high),
                Item("Send invitations", day: 14, .high),
                Item("Order the cake", at: "11:00", day: 35, .medium),
                Item("Chase replies and confirm numbers", day: 42, .medium),
                Item("Buy decorations and drinks", at: "10:00", day: 52, .medium),
                Item("Party day: set up", at: "14:00", day: 56, .high),
            ]),
        TodoTemplate(
            name: "Career development", kind: .plan, icon: "📈", summary: "A quarter's plan for the next step",
            items: [
                Item("Write down where you want to be in a year", day: 0, .high),
                Item("Update the CV", at: "19:00", day: 5, .medium),
                Item("Ask for feedback from a manager or mentor", at: "12:00", day: 10, .medium),
                Item("Pick one course or certificate", day: 14, .medium),
                Item("Coffee with someone in the role you want", at: "08:30", day: 21, .low),
                Item("Finish the first course module", day: 45, .medium),
                Item("Review progress and set the next goal", at: "18:00", day: 90, .high),
            ]),

        // MARK: Lists
        TodoTemplate(
            name: "Groceries", kind: .list, icon: "🛒", summary: "The weekly shop",
            items: [
                "Milk", "Bread", "Eggs", "Butter", "Apples", "Bananas", "Tomatoes", "Onions", "Pasta", "Rice",
                "Chicken", "Cheese", "Yoghurt", "Coffee", "Washing-up liquid",
            ].map { Item($0) }),
        TodoTemplate(
            name: "Meal planning", kind: .list, icon: "🍲", summary: "A week of dinners",
            items: [
                "Monday: vegetable stir-fry", "Tuesday: spaghetti bolognese", "Wednesday: chicken curry",
                "Thursday: fish, potatoes and peas", "Friday: homemade pizza", "Saturday: chilli con carne",
                "Sunday: roast with vegetables",
            ].map { Item($0) }),
        TodoTemplate(
            name: "Reading list", kind: .list, icon: "📚", summary: "Books to read next",
            items: [
                "A novel a friend recommended", "A classic you never finished", "A biography",
                "A book about your work", "Something funny", "A book of short stories",
            ].map { Item($0) }),
        TodoTemplate(
            name: "Cleaning schedule", kind: .list, icon: "🧹", summary: "The whole house, room by room",
            items: [
                Item("Kitchen: wipe surfaces and hob", .none, .medium), Item("Kitchen: clean the fridge"),
                Item("Bathroom: scrub bath, sink and toilet", .none, .medium), Item("Bedrooms: change the sheets"),
                Item("Vacuum all floors", .none, .medium), Item("Mop kitchen and bathroom"), Item("Dust shelves"),
                Item("Empty all bins"), Item("Clean the windows"),
            ]),
        TodoTemplate(
            name: "Packing list", kind: .list, icon: "🧳", summary: "For a week away",
            items: [
                Item("Passport and tickets", .none, .high), Item("Phone charger and adaptor", .none, .high),
                Item("Medicines", .none, .high), Item("Clothes for seven days"), Item("Toiletries"),
                Item("Swimwear"), Item("Sunglasses and sun cream"), Item("A book for the journey"),
                Item("Snacks and a water bottle"),
            ]),
    ]
}
