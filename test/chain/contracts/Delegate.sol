// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// @notice An EIP-7702 delegate (test/chain/authorization.test.ts): a wallet delegated to it answers
/// `whoAmI()` with its own address, and counts its pings in its own storage.
contract Delegate {
    uint256 public pings;

    function whoAmI() external view returns (address) {
        return address(this);
    }

    function ping() external {
        pings += 1;
    }
}
