/// \file
/// The dashboard's one page (`tracker/dashboard/page.html`, embedded into the binary at build
/// time): no external assets, so it works on a fleet without internet access.
#ifndef TESSERA_TRACKER_DASHBOARD_PAGE_H_
#define TESSERA_TRACKER_DASHBOARD_PAGE_H_

namespace tessera {
namespace tracker {

/// The HTML page, scripts and styles inline.
extern const char kDashboardPage[];

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_DASHBOARD_PAGE_H_
